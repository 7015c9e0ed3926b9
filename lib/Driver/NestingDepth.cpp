//===- NestingDepth.cpp - Reject input nested too deeply to parse ---------===//
//
// MLIR's parser, verifier, printer and many passes recurse once per nested
// region, bracket or type. A few thousand levels overflowed the tools' stacks
// (SIGSEGV) and, below that, compiling took seconds per thousand levels and
// grew quadratically; the text is checked before it is parsed, as clang
// limits bracket depth.
//
//===----------------------------------------------------------------------===//

#include "symm/Driver/Driver.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::symm;

LogicalResult mlir::symm::checkNestingDepth(const llvm::SourceMgr &sourceMgr,
                                            MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  StringRef text = buffer->getBuffer();
  unsigned depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      // A string's brackets are not structure; \" does not end it.
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '/' && text.substr(i).starts_with("//")) {
      i = text.find('\n', i);
      if (i == StringRef::npos)
        break;
    } else if (c == '{' || c == '(' || c == '[' ||
               (c == '<' && !text.substr(i).starts_with("<="))) {
      if (++depth <= kMaxNestingDepth)
        continue;
      auto [line, column] = sourceMgr.getLineAndColumn(
          llvm::SMLoc::getFromPointer(text.data() + i));
      return emitError(FileLineColLoc::get(
                 context, buffer->getBufferIdentifier(), line, column))
             << "'" << c << "' opens nesting level " << depth
             << "; Symm accepts at most " << kMaxNestingDepth
             << " levels of nested regions, brackets and types";
    } else if (c == '}' || c == ')' || c == ']' || c == '>') {
      // `->` and `>=` close nothing.
      bool arrowOrCompare = c == '>' && ((i > 0 && text[i - 1] == '-') ||
                                         text.substr(i).starts_with(">="));
      if (depth > 0 && !arrowOrCompare)
        --depth;
    }
  }
  return success();
}
