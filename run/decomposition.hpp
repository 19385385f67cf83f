#pragma once
// How cells are shared out (docs/mpi.md): contiguous gid blocks with about equal CV
// counts, first across MPI ranks, then, within a rank, across the cell groups that the
// omp solver runs on its threads. Contiguous blocks keep the gid → owner lookup a binary
// search and make "rank 0's columns, then rank 1's, ..." the global gid order.
#include <cstdint>
#include <vector>

#include "model/model.hpp"
#include "run/communicator.hpp"

namespace arbolito {

// Part k holds cells [first[k], first[k+1]) of [begin, end) (parts + 1 boundaries); each
// boundary sits where the running weight comes nearest to k/parts of the total. Parts
// may be empty (fewer cells than parts, or one cell heavier than a share).
std::vector<std::uint64_t> split_by_weight(const std::vector<double>& weight, std::uint64_t begin, std::uint64_t end,
                                           int parts);

// CVs per cell, the weight used for both splits.
std::vector<double> cv_counts(const Model& m);
// The same on every rank, each rank counting a slice of the cells (a drawn shape, as
// busyring's, is drawn once per cell over all ranks, not once per rank). Collective;
// throws on every rank if counting failed on any (PeerFailure where it failed elsewhere).
std::vector<double> cv_counts(const Model& m, Communicator& comm);

}  // namespace arbolito
