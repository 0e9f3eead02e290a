//===- OptionChecks.cpp - checks of textual pass options ------------------===//
#include "passes/OptionChecks.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;

llvm::SmallVector<llvm::StringRef> rocke::splitOptions(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef> words;
  size_t start = 0, depth = 0;
  char quote = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ' ';
    if (quote) {
      quote = c == quote ? 0 : quote;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '{' || c == '[' || c == '(') {
      ++depth;
    } else if ((c == '}' || c == ']' || c == ')') && depth) {
      --depth;
    } else if (c == ' ' && depth == 0) {
      if (i > start)
        words.push_back(text.slice(start, i));
      start = i + 1;
    }
  }
  return words;
}

LogicalResult rocke::checkRepeatedOptions(
    llvm::StringRef name, llvm::StringRef text,
    llvm::function_ref<LogicalResult(const llvm::Twine &)> emitError) {
  llvm::StringSet<> seen;
  for (llvm::StringRef word : splitOptions(text)) {
    llvm::StringRef key = word.split('=').first.trim();
    if (!seen.insert(key).second)
      return emitError(name + ": option '" + key +
                       "' is given twice; give each option once");
  }
  return success();
}
