// Prints one line on every rank.
module attributes {gpu.container_module} {
  func.func @main() {
    vector.print str "hello\n"
    return
  }
}
