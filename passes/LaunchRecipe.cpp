//===- LaunchRecipe.cpp - checks of a kernel's rocke.launch facts ---------===//
#include "passes/LaunchRecipe.h"

#include "mlir/IR/Builders.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

#include <array>

using namespace mlir;

namespace {

/// The problem sizes a grid or shape expression may name
/// (lib/Kernels/KernelBuilder.h).
constexpr llvm::StringLiteral kSizeNames[] = {"B",   "Sq",  "Sk", "Hq",
                                              "Hkv", "Dqk", "Dv"};

/// Checks a grid expression in the grammar runners evaluate
/// (python/rocke/kernel_abi.py's eval_expr): integers, names, + - * between
/// terms, parentheses and ceildiv(a,b).
class GridExpression {
public:
  GridExpression(StringRef text, function_ref<bool(StringRef)> isName)
      : text(text), isName(isName) {}

  /// Why the text is no expression, or empty when it is one.
  std::string problem() {
    if (succeeded(sum()) && (skipSpaces(), pos == text.size()))
      return "";
    if (why.empty())
      why = "unexpected '" + text.substr(pos, 1).str() + "' at offset " +
            std::to_string(pos);
    return why;
  }

private:
  StringRef text;
  function_ref<bool(StringRef)> isName;
  size_t pos = 0;
  std::string why;

  void skipSpaces() {
    while (pos < text.size() && llvm::isSpace(text[pos]))
      ++pos;
  }
  bool consume(char c) {
    skipSpaces();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  LogicalResult fail(const Twine &message) {
    if (why.empty())
      why = message.str();
    return failure();
  }
  LogicalResult expect(char c) {
    if (consume(c))
      return success();
    return fail("expected '" + Twine(c) + "' at offset " + Twine(pos));
  }
  LogicalResult sum() {
    if (failed(product()))
      return failure();
    while (consume('+') || consume('-'))
      if (failed(product()))
        return failure();
    return success();
  }
  LogicalResult product() {
    if (failed(factor()))
      return failure();
    while (consume('*'))
      if (failed(factor()))
        return failure();
    return success();
  }
  LogicalResult factor() {
    skipSpaces();
    size_t start = pos;
    if (consume('('))
      return failure(failed(sum()) || failed(expect(')')));
    if (pos < text.size() && llvm::isDigit(text[pos])) {
      while (pos < text.size() && llvm::isDigit(text[pos]))
        ++pos;
      int64_t value;
      if (text.slice(start, pos).getAsInteger(10, value))
        return fail("integer '" + text.slice(start, pos) +
                    "' does not fit in 64 bits");
      return success();
    }
    while (pos < text.size() && (llvm::isAlnum(text[pos]) || text[pos] == '_'))
      ++pos;
    StringRef name = text.slice(start, pos);
    if (name.empty() || llvm::isDigit(name.front()))
      return fail("expected a size, an integer or '(' at offset " +
                  Twine(start));
    if (name == "ceildiv")
      return failure(failed(expect('(')) || failed(sum()) ||
                     failed(expect(',')) || failed(sum()) ||
                     failed(expect(')')));
    if (!isName(name))
      return fail(
          "unknown name '" + name + "' (sizes: " +
          llvm::join(std::begin(kSizeNames), std::end(kSizeNames), ", ") +
          "; or the launch's symbols)");
    return success();
  }
};

/// An integer (not a boolean) attribute's value when it fits in int64_t.
std::optional<int64_t> intValue(Attribute attr) {
  auto integer = dyn_cast_or_null<IntegerAttr>(attr);
  if (!integer || integer.getType().isInteger(1))
    return std::nullopt;
  return rocke::int64Value(integer);
}

/// The three integers of `attr`, an array of three integers.
std::optional<std::array<int64_t, 3>> threeInts(Attribute attr) {
  auto array = dyn_cast<ArrayAttr>(attr);
  if (!array || array.size() != 3)
    return std::nullopt;
  std::array<int64_t, 3> values;
  for (auto [i, element] : llvm::enumerate(array)) {
    std::optional<int64_t> v = intValue(element);
    if (!v)
      return std::nullopt;
    values[i] = *v;
  }
  return values;
}

} // namespace

std::optional<int64_t> rocke::int64Value(IntegerAttr attr) {
  const APInt &v = attr.getValue();
  if (attr.getType().isUnsignedInteger())
    return v.getActiveBits() < 64 ? std::optional<int64_t>(v.getZExtValue())
                                  : std::nullopt;
  return v.getSignificantBits() <= 64 ? std::optional<int64_t>(v.getSExtValue())
                                      : std::nullopt;
}

FailureOr<DictionaryAttr>
rocke::checkLaunchRecipe(DictionaryAttr launch, StringRef kernel,
                         const LaunchLimits &limits,
                         std::optional<size_t> numArgs,
                         function_ref<InFlightDiagnostic()> emitError) {
  auto bad = [&](StringRef field) {
    InFlightDiagnostic diag = emitError();
    diag << "kernel '" << kernel << "': rocke.launch." << field << " ";
    return diag;
  };
  for (StringRef field : {"order", "dynamic_shared_bytes", "lds_bytes"}) {
    Attribute value = launch.get(field);
    if (!value)
      continue;
    std::optional<int64_t> v = intValue(value);
    if (!v || *v < 0)
      return bad(field) << "must be a non-negative integer, got " << value;
  }
  if (Attribute ops = launch.get("ops")) {
    auto list = dyn_cast<ArrayAttr>(ops);
    if (!list || llvm::any_of(list, [](Attribute a) {
          std::optional<int64_t> v = intValue(a);
          return !v || *v < 0;
        }))
      return bad("ops") << "must be an array of non-negative integers, got "
                        << ops;
  }

  llvm::StringSet<> symbols;
  if (Attribute symbolsAttr = launch.get("symbols")) {
    auto dict = dyn_cast<DictionaryAttr>(symbolsAttr);
    if (!dict)
      return bad("symbols")
             << "must be a dictionary of integers, got " << symbolsAttr;
    for (NamedAttribute symbol : dict) {
      StringRef name = symbol.getName().getValue();
      bool identifier = !name.empty() && !llvm::isDigit(name.front()) &&
                        llvm::all_of(name, [](char c) {
                          return llvm::isAlnum(c) || c == '_';
                        });
      if (!identifier || name == "ceildiv")
        return bad("symbols") << "names '" << name
                              << "', which is no name an expression can use";
      if (llvm::is_contained(kSizeNames, name))
        return bad("symbols")
               << "names '" << name << "', which is a problem size";
      if (!intValue(symbol.getValue()))
        return bad("symbols." + name.str())
               << "must be an integer, got " << symbol.getValue();
      symbols.insert(name);
    }
  }
  if (Attribute grid = launch.get("grid")) {
    auto list = dyn_cast<ArrayAttr>(grid);
    if (!list || list.size() != 3 ||
        !llvm::all_of(list, [](Attribute a) { return isa<StringAttr>(a); }))
      return bad("grid") << "must be three expression strings (x, y, z), got "
                         << grid;
    auto isName = [&](StringRef name) {
      return llvm::is_contained(kSizeNames, name) || symbols.contains(name);
    };
    for (auto [d, expr] : llvm::enumerate(list.getAsValueRange<StringAttr>()))
      if (std::string why = GridExpression(expr, isName).problem();
          !why.empty())
        return bad("grid[" + std::to_string(d) + "]")
               << "'" << expr << "' is no grid expression: " << why;
  }
  if (Attribute block = launch.get("block")) {
    std::optional<std::array<int64_t, 3>> dims = threeInts(block);
    if (!dims)
      return bad("block") << "must be three integers (x, y, z), got " << block;
    int64_t workItems = 1;
    for (auto [d, n] : llvm::enumerate(*dims)) {
      if (n < 1 || n > limits.maxWorkgroupSize)
        return bad("block[" + std::to_string(d) + "]")
               << "must be in [1, " << limits.maxWorkgroupSize << "], got "
               << n;
      workItems *= n;
    }
    if (workItems > limits.maxWorkgroupSize)
      return bad("block") << "asks for " << workItems
                          << " work-items per workgroup, past the target's "
                             "limit of "
                          << limits.maxWorkgroupSize;
  }
  if (Attribute args = launch.get("args")) {
    auto list = dyn_cast<ArrayAttr>(args);
    if (!list ||
        !llvm::all_of(list, [](Attribute a) { return isa<StringAttr>(a); }))
      return bad("args") << "must be an array of role strings, got " << args;
    if (numArgs && list.size() != *numArgs)
      return bad("args") << "has " << list.size() << " roles for the "
                         << *numArgs << " kernel arguments";
  }

  Builder b(launch.getContext());
  std::array<int64_t, 3> gridLimit = limits.maxGrid;
  if (Attribute given = launch.get("grid_limit")) {
    std::optional<std::array<int64_t, 3>> dims = threeInts(given);
    if (!dims)
      return bad("grid_limit")
             << "must be three integers (x, y, z), got " << given;
    for (auto [d, n] : llvm::enumerate(*dims))
      if (n < 1 || n > limits.maxGrid[d])
        return bad("grid_limit[" + std::to_string(d) + "]")
               << "must be in [1, " << limits.maxGrid[d] << "], got " << n;
    gridLimit = *dims;
  }
  NamedAttrList entries(launch);
  entries.set("grid_limit", b.getI64ArrayAttr(gridLimit));
  return entries.getDictionary(launch.getContext());
}
