// Many simulated nodes over several host processes started by Open MPI's mpirun (issue 24):
// `mpirun -np P hpmsim run --nodes N ...` gives each process a block of the nodes
// (cluster/host_link.h). The processes talk only through Open MPI; hpmsim built without it (the
// demo's packages) refuses such a start with a message saying so.
#pragma once

#include <memory>

#include "base/types.h"
#include "cluster/host_link.h"

namespace hpm::tools {

// The host processes this one was started among: mpirun's OMPI_COMM_WORLD_SIZE, else 1.
u32 hostProcesses();

// Joins the other host processes (MPI_Init; MPI_Finalize when the link goes, unless a host
// failed): null when hostProcesses() is 1. `nodes`: the simulated nodes, to name a host's block
// in messages; `interrupted`: whether Ctrl-C reached this process (a host that stops answering
// after it is given up on). Fails (usage) without Open MPI in this build.
std::unique_ptr<net::HostLink> joinHosts(u32 nodes, int (*interrupted)());

}  // namespace hpm::tools
