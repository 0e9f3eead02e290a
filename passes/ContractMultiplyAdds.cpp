//===- ContractMultiplyAdds.cpp - f32 multiply-adds contracted ------------===//
//
// The `contract` fast-math flag on f32 arith.addf / subf / mulf, so that
// LLVM fuses a multiply and an add into one instruction (v_fma_f32 /
// v_pk_fma_f32 on AMD chips, fma.rn.f32 in PTX) as the vendors' compilers do
// by default (hipcc -ffp-contract=fast-honor-pragmas, nvcc -fmad=true). The
// forward's s * c - m and the backward's P = exp2(s c - lse) each become one
// instruction instead of two; without the flag NVPTX writes mul.rn.f32,
// which ptxas may not fuse either.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace rocke {
#define GEN_PASS_DEF_CONTRACTMULTIPLYADDS
#include "passes/Passes.h.inc"
} // namespace rocke

using namespace mlir;

namespace {
struct ContractMultiplyAddsPass
    : public rocke::impl::ContractMultiplyAddsBase<ContractMultiplyAddsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    getOperation()->walk([&](arith::ArithFastMathInterface op) {
      if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp>(op))
        return;
      op->setAttr(op.getFastMathAttrName(),
                  arith::FastMathFlagsAttr::get(
                      ctx, op.getFastMathFlagsAttr().getValue() |
                               arith::FastMathFlags::contract));
    });
  }
};
} // namespace
