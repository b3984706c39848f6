// Explicit instantiation of Block for D2Q9; one unit per lattice keeps builds parallel.
#include "lbm/Block.inl"

namespace boreas {
template class Block<D2Q9, double>;
template class Block<D2Q9, float>;
}  // namespace boreas
