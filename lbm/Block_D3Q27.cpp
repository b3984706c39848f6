// Explicit instantiation of Block for D3Q27; one unit per lattice keeps builds parallel.
#include "lbm/Block.inl"

namespace boreas {
template class Block<D3Q27, double>;
template class Block<D3Q27, float>;
}  // namespace boreas
