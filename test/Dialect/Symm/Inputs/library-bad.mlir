// Does not parse.
gpu.module @library_bad {
  func.func @symm_t_broken( {
}
