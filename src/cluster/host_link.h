// The host processes a many-node run is spread over (issue 24): node blocks, one per host
// process, and the exchange between them at each window's end. The cluster (cluster/cluster.h)
// decides what is said; an implementation only carries bytes (tools/hpmsim/mpi_hosts.h over
// Open MPI), so the network layer does not depend on any transport.
#pragma once

#include <string>
#include <vector>

#include "base/types.h"

namespace hpm::net {

class HostLink {
 public:
  virtual ~HostLink() = default;
  virtual u32 hosts() const = 0;
  virtual u32 host() const = 0;
  // Sends `to[h]` (possibly empty) to every other host h and returns what each host sent this
  // one, by host (this host's own entry: empty). Every host calls it the same number of times.
  // A host that ends without answering does not hang the others: throws hpm::Error naming it
  // and the nodes it held (`describe`).
  virtual std::vector<std::string> exchange(std::vector<std::string> to) = 0;
  // Bytes handed through this link so far (sent), for the run's host statistics.
  virtual u64 bytesSent() const = 0;
  // Host seconds spent waiting in exchange().
  virtual double waitSeconds() const = 0;
};

// The nodes of host `host` of `hosts`: a block of consecutive node ids [first, last). Node ids
// run through the torus with the first dimension slowest (torus.h), so a block is a slab of the
// torus and most links stay inside one host.
struct NodeBlock {
  u32 first = 0;
  u32 last = 0;
  bool contains(u32 node) const { return node >= first && node < last; }
};
inline NodeBlock nodeBlock(u32 nodes, u32 hosts, u32 host) {
  return {static_cast<u32>(u64{nodes} * host / hosts),
          static_cast<u32>(u64{nodes} * (host + 1) / hosts)};
}

}  // namespace hpm::net
