//===- PtxEntries.cpp - kernel entry points of a PTX module ----------------===//
#include "lib/CodeObject/PtxEntries.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cstring>

using namespace rocke;

static llvm::StringRef collapse(llvm::StringRef s, std::string &storage) {
  llvm::SmallVector<llvm::StringRef> words;
  s.split(words, ' ', -1, /*KeepEmpty=*/false);
  storage = llvm::join(words, " ");
  return storage;
}

std::vector<PtxEntry> rocke::parsePtxEntries(llvm::StringRef ptx) {
  std::vector<PtxEntry> entries;
  size_t pos = 0;
  while ((pos = ptx.find(".entry", pos)) != llvm::StringRef::npos) {
    pos += strlen(".entry");
    size_t open = ptx.find('(', pos);
    size_t close = ptx.find(')', open);
    size_t body = ptx.find('{', close);
    if (open == llvm::StringRef::npos || close == llvm::StringRef::npos ||
        body == llvm::StringRef::npos)
      break;
    PtxEntry entry;
    entry.name = ptx.slice(pos, open).trim().str();

    // ".param .u64 .ptr .global .align 1 k_param_0, ..." (tabs allowed).
    llvm::SmallVector<llvm::StringRef> params;
    ptx.slice(open + 1, close).split(params, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef p : params) {
      std::string text = p.str();
      std::replace(text.begin(), text.end(), '\t', ' ');
      std::replace(text.begin(), text.end(), '\n', ' ');
      llvm::StringRef t = llvm::StringRef(text).trim();
      if (!t.consume_front(".param"))
        continue;
      // Drop the parameter's name (the last word).
      t = t.trim().rsplit(' ').first;
      std::string storage;
      entry.params.push_back(collapse(t, storage).str());
    }

    // ".maxntid 64, 1, 1" / ".reqntid ..." / ".minnctapersm N" lines.
    llvm::SmallVector<llvm::StringRef> lines;
    ptx.slice(close + 1, body).split(lines, '\n', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef line : lines) {
      line = line.trim();
      if (!line.consume_front("."))
        continue;
      auto [key, value] = line.split(' ');
      entry.directives.emplace_back(key.str(), value.trim().str());
    }
    entries.push_back(std::move(entry));
    pos = body;
  }
  return entries;
}
