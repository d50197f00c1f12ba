// STL containers and algorithms: vector, deque, list, forward_list, map/multimap, set,
// unordered_map/unordered_set (printed in sorted order, since bucket order is an implementation
// detail), priority_queue, string operations, sort/stable_sort/nth_element/partial_sort,
// lower_bound/equal_range, accumulate/transform/partition/unique/rotate/next_permutation,
// std::optional/variant/tuple, and a std::mt19937 stream (fully specified by the standard).
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <deque>
#include <forward_list>
#include <list>
#include <map>
#include <numeric>
#include <optional>
#include <queue>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

namespace {

template <typename Range>
void print(const char* label, const Range& r) {
  std::printf("%s:", label);
  for (const auto& x : r) std::printf(" %d", static_cast<int>(x));
  std::printf("\n");
}

}  // namespace

int main() {
  std::mt19937 gen(12345);  // the 10000th output of a default mt19937 is fixed by the standard
  std::vector<int> v;
  for (int i = 0; i < 40; ++i) v.push_back(static_cast<int>(gen() % 100));
  print("vector", v);
  std::vector<int> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  print("sorted", sorted);
  std::vector<std::pair<int, int>> pairs;
  for (int i = 0; i < 20; ++i) pairs.emplace_back(v[i] % 5, i);
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::printf("stable_sort keeps order:");
  for (const auto& p : pairs) std::printf(" %d/%d", p.first, p.second);
  std::printf("\n");
  std::vector<int> nth = v;
  std::nth_element(nth.begin(), nth.begin() + 20, nth.end());
  std::printf("nth_element median=%d\n", nth[20]);
  std::vector<int> part = v;
  std::partial_sort(part.begin(), part.begin() + 5, part.end(), std::greater<>());
  print("top5", std::vector<int>(part.begin(), part.begin() + 5));
  auto [lo, hi] = std::equal_range(sorted.begin(), sorted.end(), sorted[10]);
  std::printf("equal_range of %d: [%td, %td) lower_bound(50)=%td\n", sorted[10],
              lo - sorted.begin(), hi - sorted.begin(),
              std::lower_bound(sorted.begin(), sorted.end(), 50) - sorted.begin());
  std::printf("accumulate=%d inner_product=%lld\n", std::accumulate(v.begin(), v.end(), 0),
              std::inner_product(v.begin(), v.end(), sorted.begin(), 0LL));
  std::vector<int> sq(v.size());
  std::transform(v.begin(), v.end(), sq.begin(), [](int x) { return x * x % 97; });
  auto mid = std::partition(sq.begin(), sq.end(), [](int x) { return x % 2 == 0; });
  std::printf("partition: %td even\n", mid - sq.begin());
  std::vector<int> uniq = sorted;
  uniq.erase(std::unique(uniq.begin(), uniq.end()), uniq.end());
  std::printf("unique count=%zu\n", uniq.size());
  std::rotate(uniq.begin(), uniq.begin() + 3, uniq.end());
  print("rotated", uniq);
  std::array<int, 4> perm = {1, 2, 3, 4};
  int nperm = 0;
  do ++nperm;
  while (std::next_permutation(perm.begin(), perm.end()));
  std::printf("permutations of 4: %d\n", nperm);
  std::printf("min/max element: %d %d; count(7)=%td; any>98=%d\n",
              *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()),
              std::count(v.begin(), v.end(), 7),
              std::any_of(v.begin(), v.end(), [](int x) { return x > 98; }));

  std::deque<int> dq;
  for (int i = 0; i < 1000; ++i) {
    if (i % 3 == 0)
      dq.push_front(i);
    else
      dq.push_back(i);
    if (i % 7 == 0) dq.pop_front();
  }
  std::printf("deque size=%zu front=%d back=%d [500]=%d\n", dq.size(), dq.front(), dq.back(),
              dq[500]);
  std::list<int> l(v.begin(), v.begin() + 10);
  l.sort();
  l.unique();
  l.reverse();
  print("list", l);
  std::forward_list<int> fl = {5, 3, 9, 1};
  fl.sort();
  fl.push_front(0);
  print("forward_list", fl);

  std::map<std::string, int> m;
  const char* words[] = {"delta", "alpha", "charlie", "bravo", "alpha", "echo", "delta", "alpha"};
  for (const char* w : words) ++m[w];
  std::printf("map:");
  for (const auto& [k, n] : m) std::printf(" %s=%d", k.c_str(), n);
  std::printf("\n");
  std::multimap<int, char> mm = {{2, 'b'}, {1, 'a'}, {2, 'c'}, {3, 'd'}, {2, 'e'}};
  auto range = mm.equal_range(2);
  std::printf("multimap[2]:");
  for (auto it = range.first; it != range.second; ++it) std::printf(" %c", it->second);
  std::printf("\n");
  std::set<int> s(v.begin(), v.end());
  std::printf("set size=%zu first=%d last=%d contains(42)=%d\n", s.size(), *s.begin(), *s.rbegin(),
              s.count(42) > 0);

  std::unordered_map<int, std::string> um;
  for (int i = 0; i < 200; ++i) um[i * 37 % 211] = std::to_string(i);
  um.erase(37);
  std::vector<int> keys;
  for (const auto& kv : um) keys.push_back(kv.first);
  std::sort(keys.begin(), keys.end());
  std::printf("unordered_map size=%zu key[0]=%d key[last]=%d um[74]=%s\n", um.size(), keys[0],
              keys.back(), um[74].c_str());
  std::unordered_set<std::string> us = {"x", "y", "z", "x"};
  std::printf("unordered_set size=%zu has y=%d\n", us.size(), us.count("y") == 1);

  std::priority_queue<int> pq(v.begin(), v.end());
  std::printf("priority_queue:");
  for (int i = 0; i < 5; ++i) {
    std::printf(" %d", pq.top());
    pq.pop();
  }
  std::printf("\n");

  std::string str = "The Quick Brown Fox";
  std::string lower = str;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  str.replace(4, 5, "Slow");
  std::printf("string: %s | %s | find=%zu rfind=%zu substr=%s\n", str.c_str(), lower.c_str(),
              str.find("Brown"), str.rfind('o'), str.substr(9, 5).c_str());
  std::string big;
  for (int i = 0; i < 1000; ++i) big += std::to_string(i);
  std::printf("big string length=%zu compare=%d\n", big.size(), big.compare(0, 3, "012"));

  std::optional<int> opt;
  std::printf("optional: %d %d\n", opt.has_value(), opt.value_or(-1));
  opt = 9;
  std::variant<int, double, std::string> var = 2.5;
  std::printf("variant index=%zu", var.index());
  var = std::string("text");
  std::printf(" then %zu holds %s\n", var.index(), std::get<std::string>(var).c_str());
  auto tup = std::make_tuple(1, 2.0, 'c');
  std::printf("tuple: %d %.1f %c size=%zu opt=%d\n", std::get<0>(tup), std::get<1>(tup),
              std::get<2>(tup), std::tuple_size_v<decltype(tup)>, *opt);

  std::mt19937 standard;
  standard.discard(9999);
  std::printf("mt19937 10000th=%u\n", static_cast<unsigned>(standard()));
  std::mt19937_64 standard64;
  standard64.discard(9999);
  std::printf("mt19937_64 10000th=%llu\n", static_cast<unsigned long long>(standard64()));
  return 0;
}
