// Fuzzes hpmsim report's reading of result files (tools/hpmsim/report.h): arbitrary bytes, read
// as a result file would be, are either refused with hpm::Error naming the problem (an I/O
// error, exit status 6: never ExitCode::kInternal) or made into a page and a Chrome trace whose
// embedded data has no '<'; nothing else (no crash, no other exception, such as nlohmann::json's
// type errors) is acceptable. The file's name tells the reader nothing: contents decide.
#include <cstdlib>
#include <string>

#include "base/error.h"
#include "base/json_text.h"
#include "tools/hpmsim/report.h"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    hpm::tools::Report report;
    report.addText(text, "fuzz");
    const std::string page = report.html("fuzz");
    const std::string data_json = hpm::jsonText(report.data());
    // (The data as embedded: every '<' escaped, so the page's script is whole.)
    if (page.find(data_json) != std::string::npos && data_json.find('<') != std::string::npos) {
      std::abort();
    }
    (void)hpm::jsonText(report.chromeTrace());
  } catch (const hpm::Error& e) {
    if (e.code() != hpm::ExitCode::kIo) std::abort();
  }
  return 0;
}
