#include "tools/hpmsim/lib/output.h"

#include "base/json_text.h"

namespace hpm::tools {

ResultFile::ResultFile(const std::string& path) : path_(path), target_(outputTarget(path)) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(target_, ec);
  if (fs::exists(status) && !fs::is_regular_file(status) && !fs::is_directory(status)) {
    fd_ = ::open(target_.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd_ < 0) failed(errno);
    return;
  }
  const fs::path folder = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
  // A name of our own in that folder: hidden, with the process id and a random part, made
  // with O_EXCL (another process's is never taken); new files get 0666 less the umask, a
  // replaced file keeps its mode.
  std::random_device random;
  for (int attempt = 0; fd_ < 0 && attempt < 100; ++attempt) {
    temporary_ = (folder / fmt::format(".{}.{}-{:08x}.tmp", target_.filename().string(), ::getpid(),
                                       random()))
                     .string();
    fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd_ < 0 && errno != EEXIST) break;
  }
  if (fd_ < 0) {
    temporary_.clear();
    failed(errno);
  }
  struct stat old {};
  if (::stat(target_.c_str(), &old) == 0 && ::fchmod(fd_, old.st_mode & 07777) != 0) {
    failed(errno);
  }
}

ResultFile::~ResultFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
}

void ResultFile::write(std::string_view text) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno != EINTR) failed(errno);
    if (n > 0) done += static_cast<std::size_t>(n);
  }
}

void ResultFile::commit() {
  const ResultsWriting writing;
  const int fd = std::exchange(fd_, -1);
  if (::close(fd) != 0) failed(errno);
  if (temporary_.empty()) return;
  if (::rename(temporary_.c_str(), target_.c_str()) != 0) failed(errno);
  temporary_.clear();
}

void ResultFile::failed(int error) {
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
  temporary_.clear();
  fail(ExitCode::kIo, "cannot write '{}': {}", path_, std::strerror(error));
}

JsonRowSpool::JsonRowSpool() : file_(std::tmpfile()) {
  if (file_ == nullptr) {
    fail(ExitCode::kIo, "cannot make a temporary file for the intervals: {}", std::strerror(errno));
  }
}

JsonRowSpool::~JsonRowSpool() {
  std::fclose(file_);
}

void JsonRowSpool::add(const nlohmann::json& row) {
  const std::string line = jsonText(row) + "\n";
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size()) {
    fail(ExitCode::kIo, "cannot write the intervals' temporary file: {}", std::strerror(errno));
  }
  ++rows_;
}

void JsonRowSpool::print(const std::function<void(std::string_view)>& write, nlohmann::json object,
                         const std::string& key) {
  // (The member is written as a mark, which the rows then replace: the object's other members
  // keep jsonText's order and layout.)
  const std::string mark = "\"@spooled rows@\"";
  object[key] = "@spooled rows@";
  const std::string text = jsonText(object, 2);
  const std::size_t at = text.find(mark);
  write(std::string_view(text).substr(0, at));
  write(rows_ == 0 ? "[]" : "[\n");
  std::rewind(file_);
  char buffer[4096];
  bool first = true, line_start = true;
  while (std::fgets(buffer, sizeof buffer, file_) != nullptr) {
    if (line_start) {
      write(first ? "    " : ",\n    ");
      first = false;
    }
    const std::size_t n = std::strlen(buffer);
    line_start = n > 0 && buffer[n - 1] == '\n';
    write(std::string_view(buffer, line_start ? n - 1 : n));
  }
  if (rows_ != 0) write("\n  ]");
  write(std::string_view(text).substr(at + mark.size()));
  write("\n");
}

}  // namespace hpm::tools
