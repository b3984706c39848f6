// Explicit instantiation of Block for D3Q19; one unit per lattice keeps builds parallel.
#include "lbm/Block.inl"

namespace boreas {
template class Block<D3Q19, double>;
template class Block<D3Q19, float>;
}  // namespace boreas
