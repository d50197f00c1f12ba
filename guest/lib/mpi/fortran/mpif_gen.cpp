// Host tool of libmpi: writes MPI's Fortran bindings from the two places that hold their facts,
// so that nothing is kept twice by hand:
//   - guest/include/mpi.h's integer constants (#define MPI_X value) become mpif.h's and the mpi
//     module's PARAMETERs (MPI_F_STATUS_SIZE, MPI_F_SOURCE ... become MPI_STATUS_SIZE and the
//     status indices, counted from 1);
//   - calls.tbl's calls become the C entry points gfortran calls (mpi_send_) and the module's
//     explicit interfaces.
// Outputs: mpif.h (fixed and free source form alike: statements from column 7, shorter than 72
// columns, comments with '!'), mpi.f90 (the module), mpi_fortran_calls.c, mpi_fortran_names.h
// (the common blocks' C names and the kinds, for mpi_fortran.c). Each is rewritten only when it
// changes. Usage: mpif_gen MPI.H CALLS.TBL OUTDIR
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "guest/lib/gen_util.h"

namespace {

using hpm::gen::writeIfChanged;

// Fortran's kinds of MPI_Aint, MPI_Offset and MPI_Count (8 bytes on RV64: mpi_fortran.c checks
// them against the C types) and of INTEGER.
const std::vector<std::pair<std::string, long>> kKinds = {{"MPI_ADDRESS_KIND", 8},
                                                          {"MPI_OFFSET_KIND", 8},
                                                          {"MPI_COUNT_KIND", 8},
                                                          {"MPI_INTEGER_KIND", 4}};

// The variables whose addresses are special arguments (as MPICH's): each alone in a common
// block, the C library holding their storage (mpi_fortran.c). Name, Fortran dimensions, the
// macro mpi_fortran.c knows the storage by.
struct Special {
  std::string name;
  std::string dims;
  std::string macro;
};
const std::vector<Special> kSpecials = {
    {"MPI_BOTTOM", "", "HPM_F_BOTTOM"},
    {"MPI_IN_PLACE", "", "HPM_F_IN_PLACE"},
    {"MPI_STATUS_IGNORE", "(MPI_STATUS_SIZE)", "HPM_F_STATUS_IGNORE"},
    {"MPI_STATUSES_IGNORE", "(MPI_STATUS_SIZE,1)", "HPM_F_STATUSES_IGNORE"},
    {"MPI_UNWEIGHTED", "(1)", "HPM_F_UNWEIGHTED"},
    {"MPI_WEIGHTS_EMPTY", "(1)", "HPM_F_WEIGHTS_EMPTY"},
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// mpi.h's integer constants in their order (an alias takes its target's value), then Fortran's
// own: the status's size and indices, the kinds.
std::vector<std::pair<std::string, long>> constants(const std::string& header) {
  static const std::regex define(R"(^#define\s+(MPI_\w+)\s+\(?(-?\d+|MPI_\w+)\)?\s*(/\*.*)?$)");
  std::vector<std::pair<std::string, long>> out;
  std::map<std::string, long> value;
  std::istringstream lines(header);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, define)) continue;
    const std::string name = m[1];
    const std::string v = m[2];
    long n = 0;
    if (v.rfind("MPI_", 0) == 0) {
      if (!value.count(v)) throw std::runtime_error("mpi.h: " + name + " names unknown " + v);
      n = value[v];
    } else {
      n = std::stol(v);
    }
    value[name] = n;
    if (name.rfind("MPI_F_", 0) != 0) out.emplace_back(name, n);
  }
  for (const char* needed : {"MPI_F_STATUS_SIZE", "MPI_F_SOURCE", "MPI_F_TAG", "MPI_F_ERROR"}) {
    if (!value.count(needed)) throw std::runtime_error(std::string("mpi.h lacks ") + needed);
  }
  out.emplace_back("MPI_STATUS_SIZE", value["MPI_F_STATUS_SIZE"]);
  out.emplace_back("MPI_SOURCE", value["MPI_F_SOURCE"] + 1);
  out.emplace_back("MPI_TAG", value["MPI_F_TAG"] + 1);
  out.emplace_back("MPI_ERROR", value["MPI_F_ERROR"] + 1);
  out.insert(out.end(), kKinds.begin(), kKinds.end());
  return out;
}

struct Arg {
  std::string kind;
  std::string ref;  // statuses/N, indices/N: N
  std::string name;
};

struct Call {
  std::string result;  // "" (a subroutine with ierror), "double", "aint"
  std::string name;    // MPI_Send
  std::vector<Arg> args;
};

std::vector<Call> calls(const std::string& table) {
  std::vector<Call> out;
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string word;
    if (!(words >> word) || word[0] == '#') continue;
    Call c;
    if (word == "double" || word == "aint") {
      c.result = word;
      words >> word;
    }
    c.name = word;
    while (words >> word) {
      const auto colon = word.find(':');
      if (colon == std::string::npos) throw std::runtime_error(c.name + ": bad argument " + word);
      Arg a{word.substr(0, colon), "", word.substr(colon + 1)};
      const auto slash = a.kind.find('/');
      if (slash != std::string::npos) {
        a.ref = a.kind.substr(slash + 1);
        a.kind.resize(slash);
      }
      c.args.push_back(a);
    }
    out.push_back(c);
  }
  return out;
}

// ---- C ----

struct CPart {
  std::string param;  // the C parameter ("" for none)
  std::string arg;    // what the C call is given
  std::string pre, post;
};

CPart cPart(const Arg& a) {
  const std::string& x = a.name;
  const std::string ref = "*" + a.ref;
  if (a.kind == "none") return {"", "NULL", "", ""};
  if (a.kind == "in" || a.kind == "lin") return {"int* " + x, "*" + x, "", ""};
  if (a.kind == "out" || a.kind == "ints" || a.kind == "lout" || a.kind == "lins") {
    return {"int* " + x, x, "", ""};
  }
  if (a.kind == "ranges") return {"int* " + x, "(int(*)[3])" + x, "", ""};
  if (a.kind == "aint") return {"MPI_Aint* " + x, "*" + x, "", ""};
  if (a.kind == "aint_out" || a.kind == "aints") return {"MPI_Aint* " + x, x, "", ""};
  if (a.kind == "count_out") return {"MPI_Count* " + x, x, "", ""};
  if (a.kind == "buf") return {"void* " + x, "hpm_f_buf(" + x + ")", "", ""};
  if (a.kind == "weights") return {"int* " + x, "hpm_f_weights(" + x + ")", "", ""};
  if (a.kind == "loc") return {"void* " + x, x, "", ""};
  if (a.kind == "detach") {
    return {"void* " + x, "&c_" + x, "  void* c_" + x + " = NULL;\n  (void)" + x + ";\n", ""};
  }
  if (a.kind == "fn") return {a.ref + "* " + x, x, "", ""};
  if (a.kind == "status" || a.kind == "status_in") {
    return {"MPI_Fint* " + x, "p_" + x,
            "  MPI_Status c_" + x + ";\n  MPI_Status* p_" + x + " = hpm_f_status_in(" + x +
                ", &c_" + x + ");\n",
            a.kind == "status" ? "  hpm_f_status_out(p_" + x + ", " + x + ");\n" : ""};
  }
  if (a.kind == "statuses") {
    return {"MPI_Fint* " + x, "p_" + x,
            "  MPI_Status* p_" + x + " = hpm_f_statuses_in(" + x + ", " + ref + ");\n",
            "  hpm_f_statuses_out(p_" + x + ", " + x + ", " + ref + ");\n"};
  }
  if (a.kind == "index") {
    return {"int* " + x, x, "", "  if (*ierror == MPI_SUCCESS && *" + x + " >= 0) ++*" + x + ";\n"};
  }
  if (a.kind == "indices") {
    return {"int* " + x, x, "",
            "  if (*ierror == MPI_SUCCESS) hpm_f_indices_out(" + x + ", " + ref + ");\n"};
  }
  if (a.kind == "str" || a.kind == "strout") {
    return {
        std::string(a.kind == "str" ? "const " : "") + "char* " + x, "c_" + x,
        "  char c_" + x + "[HPM_F_STRING_MAX];\n  hpm_f_string_in(" + x + ", " + x + "_len, c_" +
            x + ");\n",
        a.kind == "strout" ? "  hpm_f_string_out(c_" + x + ", " + x + ", " + x + "_len);\n" : ""};
  }
  if (a.kind == "strlen") return {"int* " + x, "hpm_f_capacity(*" + x + ")", "", ""};
  throw std::runtime_error("unknown argument kind " + a.kind);
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

std::string cSource(const std::vector<Call>& table) {
  std::string out =
      "/* mpi_fortran_calls.c: written by mpif_gen from guest/lib/mpi/fortran/calls.tbl (do not\n"
      " * edit): the entry points gfortran's calls reach (mpi_send_: arguments by reference, then\n"
      " * ierror, then the CHARACTER arguments' lengths). */\n"
      "#include \"mpi_pmpi_undo.h\"\n"
      "#include \"mpi_fortran.h\"\n"
      "/* (libmpi's sources are compiled to define the PMPI_ names; mpi_pmpi_undo.h, first, gives\n"
      " * these the MPI_ names, whose wrappers hand errors to the error handlers.) */\n";
  for (const Call& c : table) {
    std::vector<std::string> params, args, lengths;
    std::string pre, post;
    for (const Arg& a : c.args) {
      const CPart p = cPart(a);
      if (!p.param.empty()) params.push_back(p.param);
      args.push_back(p.arg);
      pre += p.pre;
      post += p.post;
      if (a.kind == "str" || a.kind == "strout") lengths.push_back("size_t " + a.name + "_len");
    }
    const std::string fname = lower(c.name) + "_";
    out += "\n";
    if (!c.result.empty()) {
      const std::string type = c.result == "double" ? "double" : "MPI_Aint";
      out += type + " " + fname + "(" + (params.empty() ? "void" : join(params, ", ")) + ");\n";
      out += type + " " + fname + "(" + (params.empty() ? "void" : join(params, ", ")) + ") {\n" +
             pre + "  return " + c.name + "(" + join(args, ", ") + ");\n}\n";
      continue;
    }
    params.push_back("MPI_Fint* ierror");
    params.insert(params.end(), lengths.begin(), lengths.end());
    const std::string signature = "void " + fname + "(" + join(params, ", ") + ")";
    out += signature + ";\n" + signature + " {\n" + pre + "  *ierror = " + c.name + "(" +
           join(args, ", ") + ");\n" + post + "}\n";
  }
  return out;
}

std::string namesHeader() {
  std::string out =
      "/* mpi_fortran_names.h: written by mpif_gen (guest/lib/mpi/fortran; do not edit): the C\n"
      " * names of mpif.h's and the mpi module's common blocks (gfortran's: the block's name in\n"
      " * lower case and an underscore) and Fortran's kinds. */\n";
  for (const Special& s : kSpecials) {
    out += "#define " + s.macro + " hpm_" + lower(s.name) + "_\n";
  }
  for (const auto& [name, value] : kKinds) {
    out += "#define HPM_F_" + name.substr(4) + " " + std::to_string(value) + "\n";
  }
  return out;
}

// ---- Fortran ----

// A declaration of an interface's dummy argument; a NO_ARG_CHECK directive before it for a
// choice buffer (gfortran's way to take any type and rank, scalars too, as Open MPI's module
// does).
std::string fDecl(const Arg& a) {
  const std::string& x = a.name;
  const std::string ind = "      ";
  if (a.kind == "in" || a.kind == "strlen") return ind + "integer, intent(in) :: " + x + "\n";
  if (a.kind == "out" || a.kind == "index") return ind + "integer :: " + x + "\n";
  if (a.kind == "ints" || a.kind == "indices" || a.kind == "weights") {
    return ind + "integer :: " + x + "(*)\n";
  }
  if (a.kind == "ranges") return ind + "integer :: " + x + "(3, *)\n";
  if (a.kind == "aint") return ind + "integer(kind=MPI_ADDRESS_KIND), intent(in) :: " + x + "\n";
  if (a.kind == "aint_out") return ind + "integer(kind=MPI_ADDRESS_KIND) :: " + x + "\n";
  if (a.kind == "aints") return ind + "integer(kind=MPI_ADDRESS_KIND) :: " + x + "(*)\n";
  if (a.kind == "count_out") return ind + "integer(kind=MPI_COUNT_KIND) :: " + x + "\n";
  if (a.kind == "lin") return ind + "logical, intent(in) :: " + x + "\n";
  if (a.kind == "lout") return ind + "logical :: " + x + "\n";
  if (a.kind == "lins") return ind + "logical :: " + x + "(*)\n";
  if (a.kind == "buf" || a.kind == "loc" || a.kind == "detach") {
    return "!GCC$ ATTRIBUTES NO_ARG_CHECK :: " + x + "\n" + ind + "integer, dimension(*) :: " + x +
           "\n";
  }
  if (a.kind == "fn") return ind + "external :: " + x + "\n";
  if (a.kind == "status" || a.kind == "status_in") {
    return ind + "integer :: " + x + "(MPI_STATUS_SIZE)\n";
  }
  if (a.kind == "statuses") return ind + "integer :: " + x + "(MPI_STATUS_SIZE, *)\n";
  if (a.kind == "str") return ind + "character(len=*), intent(in) :: " + x + "\n";
  if (a.kind == "strout") return ind + "character(len=*) :: " + x + "\n";
  throw std::runtime_error("unknown argument kind " + a.kind);
}

// A statement's words joined, continued with '&' to stay within 100 columns.
std::string wrapped(const std::string& head, const std::vector<std::string>& words,
                    const std::string& tail) {
  std::string out, line = head;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string word = words[i] + (i + 1 < words.size() ? ", " : "");
    if (line.size() + word.size() > 96) {
      out += line + "&\n";
      line = "        ";
    }
    line += word;
  }
  return out + line + tail + "\n";
}

std::string fortranResultType(const std::string& result) {
  return result == "double" ? "double precision" : "integer(kind=MPI_ADDRESS_KIND)";
}

std::string moduleSource(const std::vector<std::pair<std::string, long>>& consts,
                         const std::vector<Call>& table) {
  std::string out =
      "! mpi.f90: the mpi module (use mpi), written by mpif_gen from guest/include/mpi.h and\n"
      "! guest/lib/mpi/fortran/calls.tbl (do not edit): mpif.h's constants and common blocks,\n"
      "! and an explicit interface for every call libmpi offers Fortran.\n"
      "module mpi\n  implicit none\n";
  for (const auto& [name, value] : consts) {
    out += "  integer, parameter :: " + name + " = " + std::to_string(value) + "\n";
  }
  for (const Special& s : kSpecials) {
    out += "  integer :: " + s.name + s.dims + "\n";
    out += "  common /hpm_" + lower(s.name) + "/ " + s.name + "\n";
  }
  out += "  interface\n";
  for (const Call& c : table) {
    std::vector<std::string> names;
    for (const Arg& a : c.args) {
      if (a.kind != "none") names.push_back(a.name);
    }
    const std::string fname = lower(c.name);
    if (c.result.empty()) {
      names.push_back("ierror");
      out += wrapped("    subroutine " + fname + "(", names, ")");
    } else {
      out += wrapped("    function " + fname + "(", names, ") result(r)");
    }
    out += "      import\n      implicit none\n";
    for (const Arg& a : c.args) {
      if (a.kind != "none") out += fDecl(a);
    }
    if (c.result.empty()) {
      out += "      integer :: ierror\n    end subroutine " + fname + "\n";
    } else {
      out += "      " + fortranResultType(c.result) + " :: r\n    end function " + fname + "\n";
    }
  }
  out += "  end interface\nend module mpi\n";
  return out;
}

std::string mpifHeader(const std::vector<std::pair<std::string, long>>& consts,
                       const std::vector<Call>& table) {
  std::string out =
      "! mpif.h: MPI for Fortran programs on hpmsim's nodes (libmpi),\n"
      "! written by mpif_gen from guest/include/mpi.h and\n"
      "! guest/lib/mpi/fortran/calls.tbl (do not edit). Fixed and free\n"
      "! source form alike. The calls have no explicit interfaces here\n"
      "! (the mpi module has them).\n";
  for (const auto& [name, value] : consts) {
    out += "      INTEGER " + name + "\n      PARAMETER (" + name + "=" + std::to_string(value) +
           ")\n";
  }
  for (const Special& s : kSpecials) {
    out += "      INTEGER " + s.name + s.dims + "\n";
    out += "      COMMON /HPM_" + s.name + "/ " + s.name + "\n";
  }
  for (const Call& c : table) {
    if (c.result.empty()) continue;
    out += "      " + upper(fortranResultType(c.result)) + " " + upper(c.name) + "\n";
    out += "      EXTERNAL " + upper(c.name) + "\n";
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: mpif_gen MPI.H CALLS.TBL OUTDIR\n";
    return 2;
  }
  try {
    const auto consts = constants(read(argv[1]));
    const auto table = calls(read(argv[2]));
    const std::string dir = argv[3];
    writeIfChanged(dir + "/mpif.h", mpifHeader(consts, table));
    writeIfChanged(dir + "/mpi.f90", moduleSource(consts, table));
    writeIfChanged(dir + "/mpi_fortran_calls.c", cSource(table));
    writeIfChanged(dir + "/mpi_fortran_names.h", namesHeader());
  } catch (const std::exception& e) {
    std::cerr << "mpif_gen: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
