// iostreams: std::cout with manipulators (width, fill, precision, fixed/scientific/hexfloat,
// hex/oct/showbase, boolalpha), std::cerr, stringstreams for formatting and parsing (including
// failbit on bad input), std::getline, and an fstream written, appended, read back with
// seekg/tellg, and parsed word by word.
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

int main() {
  std::cout << "hello from cout " << 42 << ' ' << -7L << ' ' << 3.5 << ' ' << true << '\n';
  std::cout << std::boolalpha << true << ' ' << false << std::noboolalpha << '\n';
  std::cout << std::hex << std::showbase << 255 << ' ' << std::oct << 8 << std::dec
            << std::noshowbase << ' ' << 99 << '\n';
  std::cout << std::setw(10) << std::setfill('*') << 123 << '|' << std::left << std::setw(8) << "ab"
            << '|' << std::right << std::setfill(' ') << '\n';
  const double values[] = {0.0,
                           1.0 / 3.0,
                           -2.5e-7,
                           6.02214076e23,
                           std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::denorm_min()};
  for (double v : values) {
    std::cout << std::defaultfloat << std::setprecision(6) << v << " | " << std::fixed
              << std::setprecision(3) << v << " | " << std::scientific << std::setprecision(10) << v
              << " | " << std::hexfloat << v << " | " << std::defaultfloat << std::setprecision(17)
              << v << '\n';
  }
  std::cout << std::setprecision(6);
  std::cerr << "to cerr " << 1.25 << std::endl;

  // stringstream formatting and parsing.
  std::ostringstream os;
  os << "x=" << std::setw(5) << std::setfill('0') << 42 << ";y=" << std::fixed
     << std::setprecision(2) << 3.14159;
  std::cout << "ostringstream: " << os.str() << '\n';
  std::istringstream is("10 20.5 word 0x1f -3");
  int a = 0;
  double b = 0;
  std::string w;
  int hexv = 0, neg = 0;
  is >> a >> b >> w >> std::hex >> hexv >> std::dec >> neg;
  std::cout << "parsed: " << a << ' ' << b << ' ' << w << ' ' << hexv << ' ' << neg
            << " good=" << is.good() << " eof=" << is.eof() << '\n';
  std::istringstream bad("12abc");
  int n1 = 0, n2 = 0;
  bad >> n1 >> n2;
  std::cout << "bad input: n1=" << n1 << " n2=" << n2 << " fail=" << bad.fail() << '\n';
  std::istringstream lines("first line\nsecond line\n\nfourth");
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) std::cout << "line " << ++count << ": [" << line << "]\n";

  // fstream: write, append, read back, seek.
  {
    std::ofstream out("stream.txt");
    out << "alpha 1\nbeta 2\n";
    out << std::setprecision(10) << 2.0 / 3.0 << '\n';
  }
  {
    std::ofstream out("stream.txt", std::ios::app);
    out << "gamma 3\n";
  }
  std::ifstream in("stream.txt");
  if (!in) {
    std::cerr << "cannot open stream.txt\n";
    return 1;
  }
  std::vector<std::string> words;
  std::string word;
  while (in >> word) words.push_back(word);
  std::cout << "words:";
  for (const auto& x : words) std::cout << " [" << x << ']';
  std::cout << '\n';
  in.clear();
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  in.seekg(6);
  std::string second;
  std::getline(in, second);
  std::cout << "size=" << size << " after seekg(6): [" << second << "]\n";

  std::fstream rw("rw.bin", std::ios::in | std::ios::out | std::ios::trunc | std::ios::binary);
  for (int i = 0; i < 16; ++i) rw.put(static_cast<char>('A' + i));
  rw.seekp(4);
  rw.write("xyz", 3);
  rw.seekg(0);
  std::string all(16, '\0');
  rw.read(all.data(), 16);
  std::cout << "rw.bin: " << all << " gcount=" << rw.gcount() << '\n';
  std::cout << std::flush;
  return 0;
}
