//===- Passes.td - rocke-mlir passes ---------------------------------------===//
#ifndef ROCKE_PASSES
#define ROCKE_PASSES

include "mlir/Pass/PassBase.td"


//===----------------------------------------------------------------------===//
// ROCDL backend (issue 5)
//===----------------------------------------------------------------------===//

def RocdlVerifyChip : Pass<"fmha-rocdl-verify-chip", "::mlir::ModuleOp"> {
  let summary = "Reject AMD chips the ROCDL finish does not support";
  let description = [{
    Fails with a diagnostic unless `chip` is one of gfx90a, gfx942, gfx950
    (facts in lib/Target/ChipInfo.h).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "AMD GPU architecture">,
  ];
}

def RocdlExp2 : Pass<"fmha-exp2-to-rocdl", "::mlir::gpu::GPUModuleOp"> {
  let summary = "math.exp2 f32 -> rocdl.exp2 (one v_exp_f32, no OCML call)";
  let description = [{
    Run before convert-gpu-to-rocdl. Also rewrites `arith.divf 1.0, %x` on f32
    carrying the `arcp` or `afn` fast-math flag to rocdl.rcp (v_rcp_f32).
  }];
  let dependentDialects = ["::mlir::ROCDL::ROCDLDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def RocdlFloatMode : Pass<"fmha-rocdl-float-mode"> {
  let summary = "AMD kernels: IEEE mode off";
  let description = [{
    Sets LLVM's "amdgpu-ieee"="false" on each kernel: the IEEE mode bit only
    changes how v_min / v_max treat signaling NaNs; with it on, LLVM
    canonicalizes every maxnum input it cannot prove canonical, such as MFMA
    accumulators. No kernel relies on signaling-NaN handling.
    fmha-rocdl-to-hsaco runs it before convert-gpu-to-rocdl.
  }];
}

def ContractMultiplyAdds : Pass<"fmha-contract-multiply-adds"> {
  let summary = "f32 multiply-adds contracted";
  let description = [{
    Sets the `contract` fast-math flag on arith.addf / subf / mulf, so LLVM
    fuses multiplies and adds into v_fma_f32 / v_pk_fma_f32 on AMD chips and
    fma.rn.f32 in PTX, as hipcc and nvcc do by default. fmha-rocdl-to-hsaco
    and fmha-nvvm-to-ptx run it before the conversion to LLVM; it runs on
    any op, so the CPU oracle can run the kernels' arithmetic as the GPUs do
    (%fwd_value_rows_host).

    Safe for the kernels' numerics: contraction only drops the rounding of
    the product (an ulp), and -inf scores stay -inf (fma(-inf, c, m) is
    -inf, as the unfused form), so a row that sees no key still gets O = 0
    and LSE = -inf.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def RocdlSchedHints : Pass<"fmha-rocdl-sched-hints",
                           "::mlir::gpu::GPUModuleOp"> {
  let summary = "The kernel builders' schedule hints -> AMDGPU scheduling "
                "strategies";
  let description = [{
    An scf.for marked `rocke.mfma_exp_loop` (the tiled forward's KV loops,
    whose softmax exponentials can issue while their MFMAs run) gets
    `rocdl.iglp.opt 2` at the top of its body: LLVM's MFMAExpInterleave
    strategy schedules that region, filling the MFMA pipeline's busy cycles
    with the exponentials and their VALU work. A gpu.func marked
    `rocke.agpr_accumulators` (more registers live than a lane's arch VGPRs:
    gfx942's D=128 backward) gets the LLVM function attributes
    "amdgpu-agpr-alloc"="256" (MFMA accumulators in AGPRs; LLVM's attributor
    sets 0 otherwise) and "amdgpu-sched-strategy"="iterative-minreg".
    fmha-rocdl-to-hsaco runs it before the loops become branches.
  }];
  let dependentDialects = ["::mlir::ROCDL::ROCDLDialect"];
}

def InterleaveMatrixOps : Pass<"fmha-interleave-matrix-ops"> {
  let summary = "Move the vector work after a run of MFMAs into the run";
  let description = [{
    LLVM's AMDGPU scheduler keeps the order it is given, so the elementwise
    work that follows a product (the backward's P and its bf16 packing after
    dP, dS after dV) issues while no MFMA runs. In each block, for each run
    of `amdgpu.mfma` ops (at most 8 ops apart), this pass places
    `vector-ops-per-matrix-op` of the ops between the run and the next MFMA
    after each of the run's last MFMAs, as many as those ops need, keeping
    every operand defined before its use: side-effect-free ops, and reads
    that no write separates from their new place and that feed no MFMA
    (those would stay live across the run). Writes, region ops and
    constants stay. fmha-rocdl-to-hsaco runs it (`interleave-matrix-ops`).
  }];
  let options = [
    Option<"vectorOpsPerMatrixOp", "vector-ops-per-matrix-op", "int64_t",
           /*default=*/"4",
           "ops placed after each MFMA (a 16x16x16 MFMA issues every 4 cycles)">,
  ];
}

def RocdlTruncBf16 : Pass<"fmha-rocdl-truncf-bf16"> {
  let summary = "f32 -> bf16 truncation as integer round-to-nearest-even";
  let description = [{
    For chips without an f32 -> bf16 conversion instruction (gfx90a,
    gfx942; lib/Target/ChipInfo). LLVM expands each `arith.truncf` f32 -> bf16 to
    six instructions: the rounding (bit extract, add3), a NaN compare, a
    quieting or and a select, and the pack. The probabilities and score
    gradients the tiled kernels convert for the next product are never
    NaN-payload sensitive, so this pass writes the rounding alone: bits +
    0x7fff + bit 16, the high half. Finite values and infinities round
    exactly as before (round to nearest even, overflow to infinity); the
    canonical quiet NaN stays a quiet NaN. fmha-rocdl-to-hsaco runs it on
    the gpu.module for those chips.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def RocdlNativeAtomics : Pass<"fmha-rocdl-native-atomics",
                              "::mlir::gpu::GPUModuleOp"> {
  let summary = "Mark llvm.atomicrmw fadd so AMDGPU emits native float atomics";
  let description = [{
    Run after convert-gpu-to-rocdl. Sets rocdl.no_fine_grained_memory,
    rocdl.no_remote_memory and syncscope("agent") on floating-point
    llvm.atomicrmw fadd, so the backend emits global_atomic_add_f32 /
    global_atomic_pk_add_bf16 instead of a global_atomic_cmpswap loop, and
    relaxes their ordering to monotonic (gradient sums are read only by later
    kernels), so no cache write-back / invalidate brackets each add.
    With `ignore-denormal-mode` (default on) it also sets
    rocdl.ignore_denormal_mode: gfx90a's global f32 atomics flush denormals,
    so without it gfx90a keeps the cmpswap loop.
  }];
  let options = [
    Option<"ignoreDenormalMode", "ignore-denormal-mode", "bool",
           /*default=*/"true",
           "Allow atomics that flush denormals (needed for gfx90a)">,
  ];
  let dependentDialects = ["::mlir::ROCDL::ROCDLDialect"];
}

def RecordKernelAbi : Pass<"fmha-record-kernel-abi", "::mlir::ModuleOp"> {
  let summary = "Record gpu.func kernel signatures and launch facts";
  let description = [{
    Run before the GPU lowering (fmha-rocdl-to-hsaco runs it first): for
    every gpu.func kernel of every gpu.module it records the name, the
    argument types in order with their expansion under the default LLVM
    calling convention (a ranked memref becomes allocated ptr, aligned ptr,
    offset, sizes..., strides...), and the kernel's `rocke.launch`
    dictionary (grid, block, args, lds_bytes, order, ... as the kernel
    generator set them), in the module attribute
    `rocke.kernels = {<gpu.module name> = [{name, args, launch}, ...]}`.
    fmha-dump-binary writes these into the JSON sidecar. The launch facts
    are checked first (passes/LaunchRecipe.h: block within the chip's
    workgroup size, grid expressions well formed, one role per argument,
    ...; a diagnostic names the kernel and the field), and get the chip's
    `grid_limit` (workgroups per grid dimension), which runners check the
    grids they evaluate against.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "Chip whose launch limits apply (default: those every supported "
           "chip shares)">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def DumpBinary : Pass<"fmha-dump-binary", "::mlir::ModuleOp"> {
  let summary = "Write the gpu.binary object (HSACO) to a file, plus JSON";
  let description = [{
    Writes the first object of each gpu.binary to `output` (with a single
    gpu.binary; several binaries get `<output>.<binary name>`) and a sidecar
    `<output>.json` listing the kernels: register counts and segment sizes
    from the code object, and, when fmha-record-kernel-abi ran, the argument
    list with its LLVM expansion and the `rocke.launch` facts, kernels sorted
    by their launch `order`.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"kernel.hsaco\"",
           "Output file">,
  ];
}

//===----------------------------------------------------------------------===//
// CPU oracle (issue 3)
//===----------------------------------------------------------------------===//

def LowerToLoops : Pass<"fmha-lower-to-loops"> {
  let summary = "Lower fmha attention ops to scalar host loops (the oracle)";
  let description = [{
    Rewrites fmha.attention_fwd and fmha.attention_bwd into scf.for nests of
    scalar memref.load/store with f32 arithmetic and math.exp/exp2/log: the
    reference lowering that `rocke-run` executes on the CPU and that every
    other strategy is compared against. It honours every attribute: the mask
    band of dialect/Mask.h (bottom-right offset Sk - Sq from runtime sizes),
    GQA (query head h reads kv head h / (Hq / Hkv)), scale, both statistics
    encodings, any strides, dynamic batch and sequence lengths, f16 / bf16 /
    f32 inputs. Fully masked rows give O = 0, LSE = -inf (M = -inf, L = 0)
    and exactly zero gradients. Accumulation is always f32 (at least as
    precise as `accumulator_type` asks) and sequential, so deterministic.
    The fmha.atomic_add ops a strategy leaves become one memref.atomic_rmw
    addf per element, as fmha-lower-atomic-add does without a chip.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

//===----------------------------------------------------------------------===//
// Matrix-core tiling (issues 5 and 7)
//===----------------------------------------------------------------------===//

def LowerMma : Pass<"fmha-lower-mma", "::mlir::ModuleOp"> {
  let summary = "fmha.mma atoms -> amdgpu.mfma, nvgpu.mma.sync or vector.contract";
  let description = [{
    Lowers each lane-level fmha.mma by its atom's family (lib/Target/FragmentLayout):
    MFMA atoms become amdgpu.mfma, mma.sync atoms nvgpu.mma.sync (register
    pairs), host atoms a call to one private function per atom shape (a
    small scf loop nest) on operands staged in stack buffers allocated once
    per function (CPU execution; compact to compile, constant stack). Runs on
    the module, where the atom functions go.
  }];
  let dependentDialects = ["::mlir::amdgpu::AMDGPUDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

//===----------------------------------------------------------------------===//
// fmha -> kernels (issue 4)
//===----------------------------------------------------------------------===//

def BwdToKernels : Pass<"fmha-bwd-to-kernels", "::mlir::ModuleOp"> {
  let summary = "Lower fmha.attention_bwd (and, with forward, "
                "fmha.attention_fwd) into gpu kernels (or host loops)";
  let description = [{
    Replaces each fmha.attention_bwd by scratch buffers, kernels and their
    launches (lib/Kernels/KernelBuilder.h, lib/Kernels/AttentionKernels.h). `strategy=warp`: one
    subgroup per (batch, query token, query head), lanes split the head dims,
    dot products by gpu.subgroup_reduce, dK/dV by f32 atomics.
    `strategy=tiled`: the FlashAttention-2 backward (preprocess, KV-block
    main kernel, dQ postprocess).

    With `forward`, each fmha.attention_fwd becomes the FlashAttention-2
    forward kernel (lib/Kernels/TiledFwdKernels.cpp, whatever the strategy; tiles
    from `fwd-block-q`, `fwd-block-kv`, `fwd-num-warps`), written on fmha
    tiles like the tiled backward. Kernels record the fmha ops that launch
    them in module order, forward and backward alike, so runners launch a
    forward -> backward chain in order. Without it the forward ops stay (the
    CPU oracle's reference lowers them, fmha-lower-to-loops), and the `fwd-*`
    options are errors; with it they are checked against what the forward
    accepts even in a module without a forward.

    Explicit tiles get the register estimate of the automatic choice: past
    150 % of what a lane of the workgroup holds they are an error, past the
    automatic choice's budget a warning (spills predicted).

    `target=gpu` puts the kernels in `gpu.module @fmha_kernels` and launches
    them with gpu.launch_func; `target=host` makes each kernel a private
    func.func looping over its grid with one lane per workgroup (subgroup size
    1, `subgroup-size` is ignored), which the CPU oracle runs. Every kernel
    carries `rocke.launch` = {order, grid, block, args} for runners that
    launch the kernels themselves.
  }];
  let options = [
    Option<"strategy", "strategy", "::rocke::BwdStrategy",
           /*default=*/"::rocke::BwdStrategy::Tiled",
           "tiled (FlashAttention-2) or warp (subgroup per query row)",
           [{::llvm::cl::values(
             clEnumValN(::rocke::BwdStrategy::Tiled, "tiled",
                        "FlashAttention-2, KV-block stationary"),
             clEnumValN(::rocke::BwdStrategy::Warp, "warp",
                        "one subgroup per query row"))}]>,
    Option<"target", "target", "::rocke::KernelPlacement",
           /*default=*/"::rocke::KernelPlacement::Gpu",
           "gpu (gpu.module kernels) or host (CPU loops)",
           [{::llvm::cl::values(
             clEnumValN(::rocke::KernelPlacement::Gpu, "gpu",
                        "gpu.module kernels and gpu.launch_func"),
             clEnumValN(::rocke::KernelPlacement::Host, "host",
                        "private functions looping over the grid"))}]>,
    Option<"endToEnd", "end-to-end", "bool", /*default=*/"false",
           "Fail unless the module has an fmha op to lower and none this "
           "pass leaves behind (set by the end-to-end pipelines, whose later "
           "passes lower nothing else)">,
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "GPU of lib/Target/ChipInfo (gfx90a, gfx942, gfx950, sm_80 ... sm_90a): "
           "its subgroup size, matrix atoms, workgroup memory and default "
           "tiles; empty: a generic GPU of `subgroup-size` lanes">,
    Option<"subgroupSize", "subgroup-size", "unsigned", /*default=*/"0",
           "Lanes per subgroup on the GPU (a power of two: 64 wave64, 32); "
           "0: the chip's, else 64">,
    Option<"matrixAtom", "matrix-atom", "std::string", /*default=*/"\"auto\"",
           "Matrix atom of lib/Target/FragmentLayout for the tiled contractions">,
    Option<"blockQ", "block-q", "int64_t", /*default=*/"0",
           "Query rows per tile (tiled); 0: chosen from the chip's workgroup "
           "memory and registers">,
    Option<"blockKv", "block-kv", "int64_t", /*default=*/"0",
           "Key rows per tile (tiled); 0: chosen like block-q">,
    Option<"numWarps", "num-warps", "int64_t", /*default=*/"0",
           "Subgroups per workgroup of the tiled main kernel and of the "
           "preprocess; 0: chosen like block-q (4 for the warp strategy)">,
    Option<"scoreLayout", "score-layout", "::rocke::ScoreLayout",
           /*default=*/"::rocke::ScoreLayout::Auto",
           "Score tiles of the tiled strategy",
           [{::llvm::cl::values(
             clEnumValN(::rocke::ScoreLayout::Auto, "auto",
                        "the one whose accumulators feed the next product"),
             clEnumValN(::rocke::ScoreLayout::KvByQ, "kv-q", "S^T [kv x q]"),
             clEnumValN(::rocke::ScoreLayout::QByKv, "q-kv", "S [q x kv]"))}]>,
    Option<"operandStaging", "operand-staging", "::rocke::OperandStaging",
           /*default=*/"::rocke::OperandStaging::Auto",
           "How the tiled strategy stages Q, dO and K for its products",
           [{::llvm::cl::values(
             clEnumValN(::rocke::OperandStaging::Auto, "auto",
                        "transposed-copies for MFMA without transposed LDS "
                        "reads, else transposing-reads"),
             clEnumValN(::rocke::OperandStaging::TransposingReads,
                        "transposing-reads",
                        "one copy; column reads transpose (ldmatrix.trans, "
                        "ds_read_b64_tr_b16 on gfx950) or gather"),
             clEnumValN(::rocke::OperandStaging::TransposedCopies,
                        "transposed-copies",
                        "Q and dO as rows and transposed, K fragments in "
                        "registers"))}]>,
    Option<"queryPipelining", "query-pipelining", "::rocke::QueryPipelining",
           /*default=*/"::rocke::QueryPipelining::Auto",
           "How the tiled main kernel fetches the next query block's Q and "
           "dO rows",
           [{::llvm::cl::values(
             clEnumValN(::rocke::QueryPipelining::Auto, "auto",
                        "async-copies with warpgroup products, else "
                        "registers (measured faster so on the H200)"),
             clEnumValN(::rocke::QueryPipelining::Registers, "registers",
                        "global loads into registers, stored to workgroup "
                        "memory at the next iteration"),
             clEnumValN(::rocke::QueryPipelining::AsyncCopies,
                        "async-copies",
                        "cp.async into double-buffered workgroup tiles "
                        "(NVIDIA sm_80+)"))}]>,
    Option<"warpgroupMma", "warpgroup-mma", "::rocke::WarpgroupMma",
           /*default=*/"::rocke::WarpgroupMma::Auto",
           "Whether the tiled backward's S, dP, dV and dK products are "
           "issued by warpgroups (wgmma, sm_90a)",
           [{::llvm::cl::values(
             clEnumValN(::rocke::WarpgroupMma::Auto, "auto",
                        "where the chip has them and the tiles allow"),
             clEnumValN(::rocke::WarpgroupMma::Off, "off",
                        "each subgroup multiplies on its own"),
             clEnumValN(::rocke::WarpgroupMma::On, "on",
                        "four subgroups read B once from workgroup memory"))}]>,
    Option<"warpgroupLayout", "warpgroup-layout",
           "::rocke::WarpgroupLayout",
           /*default=*/"::rocke::WarpgroupLayout::Auto",
           "How the operands of the backward's warpgroup products (K, V, "
           "Q, dO, dS^T) are laid out in workgroup memory",
           [{::llvm::cl::values(
             clEnumValN(::rocke::WarpgroupLayout::Auto, "auto",
                        "swizzle-128b where the head dims fill whole 128-byte "
                        "rows, else core-matrices"),
             clEnumValN(::rocke::WarpgroupLayout::CoreMatrices,
                        "core-matrices", "8 x 16-byte core matrices, no "
                        "swizzle"),
             clEnumValN(::rocke::WarpgroupLayout::Swizzle128B, "swizzle-128b",
                        "rows of 128 bytes, 16-byte chunks swizzled by the "
                        "row"))}]>,
    Option<"maskBlocks", "mask-blocks", "::rocke::MaskBlocks",
           /*default=*/"::rocke::MaskBlocks::Auto",
           "How the tiled kernels mask the score blocks of their loops",
           [{::llvm::cl::values(
             clEnumValN(::rocke::MaskBlocks::Auto, "auto",
                        "the chip's choice (whole-block-loops on AMD chips "
                        "and the host, per-block-branch on NVIDIA)"),
             clEnumValN(::rocke::MaskBlocks::WholeBlockLoops,
                        "whole-block-loops",
                        "cut blocks in loops of their own, whole ones in a "
                        "loop without the mask"),
             clEnumValN(::rocke::MaskBlocks::PerBlockBranch,
                        "per-block-branch",
                        "one loop, a branch per block around the mask"))}]>,
    Option<"dqAccumulation", "dq-accumulation", "::rocke::DqAccumulation",
           /*default=*/"::rocke::DqAccumulation::Auto",
           "How the tiled backward adds each query block's dQ into its f32 "
           "accumulator",
           [{::llvm::cl::values(
             clEnumValN(::rocke::DqAccumulation::Auto, "auto",
                        "bulk-reduce where it may be and its stage fits "
                        "beside the tiles (D = 64 and 128 on sm_90a), else "
                        "atomics"),
             clEnumValN(::rocke::DqAccumulation::Atomics, "atomics",
                        "each lane adds its registers atomically"),
             clEnumValN(::rocke::DqAccumulation::BulkReduce, "bulk-reduce",
                        "staged in workgroup memory, added by the bulk-copy "
                        "unit (cp.reduce.async.bulk; warpgroup products, "
                        "sm_90a)"))}]>,
    Option<"dqStageSlots", "dq-stage-slots", "int64_t", /*default=*/"1",
           "Slots of the bulk reductions' dQ stage: 1, or 2 (a double "
           "buffer whose reads get a block and a half; with "
           "dq-accumulation=bulk-reduce)">,
    Option<"indexBitwidth", "index-bitwidth", "unsigned", /*default=*/"64",
           "Index width the target lowering uses (32 or 64); static shapes "
           "it cannot address are rejected">,
    Option<"forward", "forward", "bool", /*default=*/"false",
           "Also lower fmha.attention_fwd into the tiled forward kernel">,
    Option<"fwdBlockQ", "fwd-block-q", "int64_t", /*default=*/"0",
           "Query rows per forward workgroup; 0: chosen from the chip's "
           "workgroup memory and registers">,
    Option<"fwdBlockKv", "fwd-block-kv", "int64_t", /*default=*/"0",
           "Key rows per forward KV block; 0: chosen like fwd-block-q">,
    Option<"fwdNumWarps", "fwd-num-warps", "int64_t", /*default=*/"0",
           "Subgroups per forward workgroup; 0: chosen like fwd-block-q">,
    Option<"fwdKvPipelining", "fwd-kv-pipelining", "::rocke::KvPipelining",
           /*default=*/"::rocke::KvPipelining::Auto",
           "How the forward fetches the K and V blocks",
           [{::llvm::cl::values(
             clEnumValN(::rocke::KvPipelining::Auto, "auto",
                        "async-copies where the chip and tiles allow it "
                        "(producer-warpgroup for two warpgroups at Dv <= "
                        "128 on swizzled rows), else registers where the "
                        "chip has them"),
             clEnumValN(::rocke::KvPipelining::Synchronous, "synchronous",
                        "each block copied at the top of its iteration"),
             clEnumValN(::rocke::KvPipelining::Registers, "registers",
                        "the next block loaded into registers while this "
                        "one computes"),
             clEnumValN(::rocke::KvPipelining::AsyncCopies, "async-copies",
                        "cp.async of the next block into double-buffered "
                        "tiles (NVIDIA sm_80+)"),
             clEnumValN(::rocke::KvPipelining::ProducerWarpgroup,
                        "producer-warpgroup",
                        "a producer warpgroup copies the blocks by cp.async, "
                        "mbarriers hand the slots over (warpgroup products, "
                        "sm_90a)"))}]>,
    Option<"fwdWarpgroupMma", "fwd-warpgroup-mma", "::rocke::WarpgroupMma",
           /*default=*/"::rocke::WarpgroupMma::Auto",
           "Whether the forward's S and O products are issued by "
           "warpgroups (wgmma, sm_90a)",
           [{::llvm::cl::values(
             clEnumValN(::rocke::WarpgroupMma::Auto, "auto",
                        "where the chip has them and the tiles allow"),
             clEnumValN(::rocke::WarpgroupMma::Off, "off",
                        "each subgroup multiplies on its own"),
             clEnumValN(::rocke::WarpgroupMma::On, "on",
                        "four subgroups read Q, K and V once from workgroup "
                        "memory"))}]>,
    Option<"fwdWarpgroupLayout", "fwd-warpgroup-layout",
           "::rocke::WarpgroupLayout",
           /*default=*/"::rocke::WarpgroupLayout::Auto",
           "How the operands of the forward's warpgroup products (Q, K, V) "
           "are laid out in workgroup memory",
           [{::llvm::cl::values(
             clEnumValN(::rocke::WarpgroupLayout::Auto, "auto",
                        "swizzle-128b where the head dims fill whole 128-byte "
                        "rows, else core-matrices"),
             clEnumValN(::rocke::WarpgroupLayout::CoreMatrices,
                        "core-matrices", "8 x 16-byte core matrices, no "
                        "swizzle"),
             clEnumValN(::rocke::WarpgroupLayout::Swizzle128B, "swizzle-128b",
                        "rows of 128 bytes, 16-byte chunks swizzled by the "
                        "row"))}]>,
    Option<"fwdWarpgroupSchedule", "fwd-warpgroup-schedule",
           "::rocke::WarpgroupSchedule",
           /*default=*/"::rocke::WarpgroupSchedule::Auto",
           "How the forward's computing warpgroups share the matrix cores "
           "(fwd-kv-pipelining=producer-warpgroup)",
           [{::llvm::cl::values(
             clEnumValN(::rocke::WarpgroupSchedule::Auto, "auto",
                        "ping-pong with next-block P V, else independent"),
             clEnumValN(::rocke::WarpgroupSchedule::Independent,
                        "independent", "each runs its loop on its own"),
             clEnumValN(::rocke::WarpgroupSchedule::PingPong, "ping-pong",
                        "they take turns issuing their score products, one's "
                        "softmax beside the other's products"))}]>,
    Option<"fwdPvSchedule", "fwd-pv-schedule", "::rocke::PvSchedule",
           /*default=*/"::rocke::PvSchedule::Auto",
           "When the forward's warpgroups issue a KV block's P V product "
           "(fwd-kv-pipelining=producer-warpgroup)",
           [{::llvm::cl::values(
             clEnumValN(::rocke::PvSchedule::Auto, "auto",
                        "next-block with a producer warpgroup and whole "
                        "blocks (fwd-kv-slices auto), else same-block"),
             clEnumValN(::rocke::PvSchedule::SameBlock, "same-block",
                        "after the block's softmax"),
             clEnumValN(::rocke::PvSchedule::NextBlock, "next-block",
                        "after the next block's score product, during its "
                        "softmax (one score slice a block)"))}]>,
    Option<"fwdKvSlices", "fwd-kv-slices", "int64_t", /*default=*/"0",
           "Slices each forward KV block's scores are computed in: every "
           "slice's Q K^T is issued before the first slice's softmax, so a "
           "slice's softmax runs while the next slice's products do "
           "(warpgroup products are asynchronous); 0: slices of 64 keys with "
           "warpgroup products at Dv >= 128, else 1">,
    Option<"fwdScoreLayout", "fwd-score-layout", "::rocke::ScoreLayout",
           /*default=*/"::rocke::ScoreLayout::Auto",
           "Score tiles of the forward",
           [{::llvm::cl::values(
             clEnumValN(::rocke::ScoreLayout::Auto, "auto",
                        "the one whose accumulators feed P V"),
             clEnumValN(::rocke::ScoreLayout::KvByQ, "kv-q",
                        "S^T [kv x q] (O^T = V^T P^T, as on MFMA)"),
             clEnumValN(::rocke::ScoreLayout::QByKv, "q-kv",
                        "S [q x kv] (O = P V, as on mma.sync)"))}]>,
    Option<"fwdOperandStaging", "fwd-operand-staging",
           "::rocke::OperandStaging",
           /*default=*/"::rocke::OperandStaging::Auto",
           "How the forward with S^T stages V, the A operand of O^T = V^T P^T",
           [{::llvm::cl::values(
             clEnumValN(::rocke::OperandStaging::Auto, "auto",
                        "transposing-reads where the chip has transposed "
                        "LDS reads, else transposed-copies"),
             clEnumValN(::rocke::OperandStaging::TransposingReads,
                        "transposing-reads",
                        "V as rows, V^T read down their columns "
                        "(ds_read_b64_tr_b16 on gfx950)"),
             clEnumValN(::rocke::OperandStaging::TransposedCopies,
                        "transposed-copies",
                        "V^T staged, read along its rows"))}]>,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect", "::rocke::fmha::FmhaDialect",
    "::mlir::nvgpu::NVGPUDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::amdgpu::AMDGPUDialect",
  ];
}

def PipelineTileFetches : Pass<"fmha-pipeline-tile-fetches"> {
  let summary = "issue a loop's tile fetches and async copies one iteration "
                "ahead";
  let description = [{
    The pipelining stage of the tiled lowering. fmha-bwd-to-kernels writes
    the kernels' block loops one block per iteration: the main backward
    kernel's query-block loop fetches its Q and dO rows into registers
    (fmha.tile_fetch) and places them in workgroup memory (fmha.tile_place),
    or copies them asynchronously into slot `qb rem 2` of double-buffered
    tiles (fmha.tile_copy_async) and waits for them, then reads its rows'
    statistics and runs the products; the forward's KV-block loop copies K
    and V the same way. This pass pipelines such a loop in two stages:
    iteration i issues the global reads of iteration i + 1 and carries them
    (or their async group) to the next iteration; the first iteration's
    reads go before the loop. Stage 0 is every top-level op of the body that
    only reads memory outside the workgroup which the loop does not write,
    and every async copy into slot `iv rem N` of a tile the loop touches
    through that slot only, with the pure ops computing their operands, none
    depending on a value the loop carries. Fetches and reads go before the
    operand reads of the body's last product whose result reaches memory in
    the iteration (not one that only feeds a carried accumulator), so their
    latency hides behind it; async copies right after the body's wait for this block's copies,
    into the other slot (fmha-place-workgroup-barriers orders the previous
    iteration's reads of it before them). Nothing is predicated: stage 0 may
    only hold ops that need no guard for an iteration past the end (a fetch
    and an async copy clamp their rows; a vector.transfer_read's
    out-of-bounds dims read padding); the async copy of the block past the
    end is waited for after the loop. A loop that starts where the loop
    before it ends, with the same stage 0, takes its first block from that
    loop instead of reading it again. Runs before fmha-lower-tile-copies;
    loops without such a transfer are left alone.

    With `place-first`, the first block's reads before the loop are also
    placed there (the ops of the body that place the fetched values in
    workgroup memory, pure or writing it only, cloned), which the first
    iteration repeats: the wait for them is then before the loop
    (ChipInfo::placeFirstBlock).
  }];
  let options = [
    Option<"placeFirst", "place-first", "bool", /*default=*/"false",
           "also place the first block in workgroup memory before the loop">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::nvgpu::NVGPUDialect"];
}

def LowerTileCopies : Pass<"fmha-lower-tile-copies"> {
  let summary = "workgroup tile copies -> each thread's loads and stores";
  let description = [{
    The copy stage of the tiled lowering. fmha-bwd-to-kernels writes the
    copies of Q, K, V and dO rows into workgroup memory as whole tiles:
    fmha.tile_copy (now), fmha.tile_copy_async (cp.async into a slot of a
    double-buffered tile, a group token for nvgpu.device_async_wait), and
    fmha.tile_fetch / fmha.tile_place (the global loads and the workgroup
    stores apart, the !fmha.fetched tile carried by the query loop in
    between). This pass cuts each tile into the chunks its type names and
    gives every thread its own: vector loads of rows (past the sequence:
    zeros), vector stores (into rows, 8-row atoms or transposed), 16-byte
    nvgpu.device_async_copy ops. Loops that carry !fmha.fetched values carry
    the thread's vectors. A 1 x N vector.transfer_read whose row may lie past
    the end (a query row's record of statistics, read unguarded so that it
    can be issued a block ahead) becomes a bounds check and one vector load.
    Runs before fmha-distribute-tiles.

    Rows of a buffer-descriptor memref (#amdgpu.address_space<fat_raw_buffer>,
    which the tiled forward reads K and V through on AMD chips) are read
    without the bound check on seq_len: the descriptor's size ends at the
    sequence, and the hardware reads zeros past it.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def SplitWorkgroupTiles : Pass<"fmha-split-workgroup-tiles"> {
  let summary = "workgroup tiles -> the calling subgroup's blocks of them";
  let description = [{
    The first half of the distribution stage. fmha-bwd-to-kernels writes
    the main kernel on the workgroup's tiles: a !fmha.tile with `subgroups
    GMxGN` (and `strides`) is the whole block's score, gradient or operand
    tile and says how its [rows / GM x cols / GN] blocks fall to the
    subgroups. This pass gives each subgroup its block: the ops that address
    memory or positions (tile_read / load / write / store / accumulate /
    broadcast / mask / store_lines, tile_mma_warpgroup's buffers) add the
    block's origin to their coordinates and take the lane's id (thread %
    lanes) instead of the thread's; every tile value, loop-carried ones
    included, takes the block's type. Runs before fmha-distribute-tiles,
    which rejects workgroup tiles.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def DistributeTiles : Pass<"fmha-distribute-tiles"> {
  let summary = "subgroup tiles (!fmha.tile) -> per-lane fragments of matrix atoms";
  let description = [{
    The distribution stage of the tiled lowering, after
    fmha-split-workgroup-tiles has given each subgroup its block of the
    workgroup's tiles (it rejects tiles still split over subgroups). The
    main kernel's products are on tiles: operand tiles read from
    workgroup memory (fmha.tile_read) or once from global memory
    (fmha.tile_load), products (fmha.tile_mma), and accumulator tiles reused
    as the next product's operand in registers (fmha.tile_convert). This
    pass gives each lane its fragments (lib/Target/FragmentLayout), one 1-D vector
    per atom, row-major over the tile: fragment reads at the lane's
    coordinates (vector loads, ldmatrix on mma.sync), one fmha.mma per atom
    of a product (one fmha.warpgroup_mma with B descriptors for
    fmha.tile_mma_warpgroup), and register picks for the conversions. Row reductions
    (fmha.tile_reduce) combine a lane's registers of a row and then the
    lanes sharing it with gpu.subgroup_reduce over the layout's lane
    cluster; per-row vectors broadcast onto C tiles by register shuffles.
    Tile-carrying scf loops carry the fragments. Runs before
    fmha-lower-subgroup-reduce and fmha-lower-mma.

    MFMA products issue the reads of `mfma-read-batch` k steps together and
    then one amdgpu.memory_counter_wait for them: LLVM's SIInsertWaitcnts
    would put a wait before the first use of each read instead.

    With `transposed-lds-reads` (gfx950) an MFMA fragment of 16-bit elements
    whose k runs down the buffer's columns (A read from [k][m], B from
    [k][n]) is read four registers at a time by amdgpu.transpose_load
    (ds_read_b64_tr_b16) at the addresses lib/Target/FragmentLayout's
    transposedReadAddress gives, instead of one element at a time.
  }];
  let options = [
    Option<"mfmaReadBatch", "mfma-read-batch", "int64_t", /*default=*/"1",
           "k steps of an MFMA product whose workgroup-memory reads precede "
           "one wait for them (1: LLVM's waits)">,
    Option<"transposedLdsReads", "transposed-lds-reads", "bool",
           /*default=*/"false",
           "read MFMA fragments that run down a workgroup buffer's columns "
           "with transposing LDS reads (gfx950)">,
  ];
  let dependentDialects = ["::mlir::amdgpu::AMDGPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def DeferWarpgroupWaits : Pass<"fmha-defer-warpgroup-waits"> {
  let summary = "move each fmha.warpgroup_wait to the first use of its product";
  let description = [{
    Warpgroup products (fmha.warpgroup_mma, wgmma) run asynchronously until
    a wait. fmha-distribute-tiles waits right after each; this pass moves each
    wait down its block to the first op that uses the result, writes
    workgroup memory the product reads, arrives on an mbarrier (which hands
    what the product read to other work-items), or ends the block, and sets
    its `pending` to the products issued in between (certainly issued, so
    waiting until that many are left completes it), lowered where an
    earlier wait of the block already bounds what is in flight (ptxas
    serialises the products of a kernel whose counts rise). Run before
    fmha-place-workgroup-barriers, which orders the product's reads at the
    wait.
  }];
}

def LowerWarpgroupMma : Pass<"fmha-lower-warpgroup-mma"> {
  let summary = "fmha.warpgroup_mma -> wgmma.mma_async (sm_90a)";
  let description = [{
    Each fmha.warpgroup_mma becomes a wgmma fence (its accumulator and A
    registers were written by ordinary instructions), one wgmma.mma_async
    per k step and the commit of their group; each fmha.warpgroup_wait a
    wgmma.wait_group the accumulator registers pass through, so nothing
    reads them earlier. Both are inline PTX: NVVM's wgmma op takes A from
    workgroup memory only (these take A from registers), and its wait has no
    operands to keep the registers' readers after it. Runs in
    fmha-nvvm-to-ptx after fmha-place-workgroup-barriers, which orders the
    products' reads of their buffer (the ops name it; the descriptors do
    not).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::vector::VectorDialect"];
}

def LowerMasks : Pass<"fmha-lower-masks"> {
  let summary = "fmha.mask_fragment -> per-element comparisons and a select";
  let description = [{
    The masking stage of the tiled lowering. Each element of a score
    fragment sits at the lane's coordinates plus a constant of its register
    (lib/Target/FragmentLayout), so its key - query is one lane value plus a
    constant: the band becomes one index comparison per element and edge
    against a constant, the keys past Sk one more, and a select zeroes what
    is hidden. fmha-lower-to-loops, fmha-rocdl-to-hsaco and
    fmha-nvvm-to-ptx lower the op the same way.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def LowerAtomicAdd : Pass<"fmha-lower-atomic-add"> {
  let summary = "fmha.atomic_add -> PTX vector reductions or scalar atomics; "
                "fmha.bulk_add -> PTX bulk reductions";
  let description = [{
    Lowers each fmha.atomic_add by the chip's widest native f32 atomic add
    (lib/Target/ChipInfo): on sm_90 and newer, aligned f32 runs into global memory
    (`#gpu.address_space<global>`, as the kernels' arguments) become inline
    PTX `red.global.add.v2.f32` / `.v4.f32` (relaxed, gpu scope; PTX
    ISA 8.1, which fmha-nvvm-to-ptx asks for there); every other element,
    and every element for other chips or an empty `chip` (the host), becomes
    one memref.atomic_rmw addf. AMD chips take the scalar form: their widest
    f32 atomic is global_atomic_add_f32 (fmha-rocdl-native-atomics makes it
    native). fmha-lower-to-loops lowers the op the same scalar way.

    On chips with bulk reductions (ChipInfo::asyncBulkReduce) each
    fmha.bulk_add becomes inline PTX `cp.reduce.async.bulk.global.shared::cta
    .bulk_group.add.f32`, each fmha.bulk_commit `cp.async.bulk.commit_group`,
    each fmha.bulk_wait `cp.async.bulk.wait_group.read N` (N: its `pending`);
    elsewhere they are an error. Runs after fmha-place-workgroup-barriers, which orders the
    reductions' reads.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"\"",
           "GPU of lib/Target/ChipInfo (sm_90: vector reductions); empty: one "
           "scalar atomic per element">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect"];
}

def PlaceWorkgroupBarriers : Pass<"fmha-place-workgroup-barriers",
                                  "::mlir::gpu::GPUFuncOp"> {
  let summary = "Insert gpu.barrier where workgroup-memory accesses conflict";
  let description = [{
    For each kernel, inserts a gpu.barrier before every access to workgroup
    memory that may conflict with another work-item's access since the last
    barrier: a read after a write or a write after a read of overlapping
    bytes (views of one allocation at constant byte offsets are told apart by
    their ranges). Writes are not ordered against writes: a phase writes
    each element once, and the next phase's writes are ordered by the reads
    in between. A barrier goes right after the last workgroup-memory access
    before the access that needs it (as few barriers as the accesses allow,
    reached as early as possible), inside
    scf.for loops whose bounds, and scf.while loops whose condition, are the
    same for every work-item (the body is walked until the hazards an
    iteration leaves to the next are stable), and inside the branches of an
    scf.if whose condition is. Never inside an scf.if or loop that a part of
    the workgroup only may run (condition or bounds from the work-item): its
    accesses are ordered as one, by barriers before and after it, and a
    hazard only a barrier inside it would order is an error naming both
    accesses. Workgroup-memory accesses in other ops with regions, or in a
    kernel whose body is blocks joined by branches (cf), are errors: the
    pass follows scf only. Existing barriers stay. An
    nvgpu.device_async_copy writes its destination at some point up to the
    nvgpu.device_async_wait covering its group: a write at the issue against
    earlier reads, at the wait against later ones (a barrier after the
    wait). fmha-bwd-to-kernels leaves the tiled main kernel's
    synchronisation to this pass.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def LowerSubgroupReduce : Pass<"fmha-lower-subgroup-reduce"> {
  let summary = "gpu.subgroup_reduce -> gpu.shuffle xor butterflies";
  let description = [{
    Lowers gpu.subgroup_reduce (add, max, ..., with or without cluster_size)
    into log2(cluster) gpu.shuffle xor steps for a subgroup of
    `subgroup-size` lanes, so no target needs to legalize subgroup_reduce
    (convert-gpu-to-rocdl does not). Vectors and sub-32-bit types are packed
    into 32-bit shuffles; wider types (f64) are rejected with a diagnostic.
  }];
  let options = [
    Option<"subgroupSize", "subgroup-size", "unsigned", /*default=*/"64",
           "Lanes per subgroup (a power of two)">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

//===----------------------------------------------------------------------===//
// NVVM backend (issue 7)
//===----------------------------------------------------------------------===//

def NvvmVerifyChip : Pass<"fmha-nvvm-verify-chip", "::mlir::ModuleOp"> {
  let summary = "Reject NVIDIA chips the NVVM finish does not support";
  let description = [{
    Fails with a diagnostic unless `chip` has bf16 mma.sync m16n8k16
    (sm_80 and newer, lib/Target/ChipInfo.h).
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "NVIDIA GPU architecture (sm_XY)">,
  ];
}

def DeclareDynamicSharedMemory : Pass<"fmha-declare-dynamic-shared-memory",
                                      "::mlir::gpu::GPUModuleOp"> {
  let summary = "Declare the dynamic shared-memory symbol as the launch's "
                "dynamic region, aligned";
  let description = [{
    Run after convert-gpu-to-nvvm, whose lowering of gpu.dynamic_shared_memory
    defines a zero-length internal global in address space 3 aligned to 16
    bytes. NVPTX prints that as a one-byte static variable, ahead of the
    kernel's other static shared variables (the mbarriers of
    nvgpu.mbarrier.create), so the buffers carved out of it overlapped them.
    This pass makes every such global an external declaration (PTX's
    `.extern .shared` array: ptxas places it after the static variables) and
    raises its alignment to `alignment`: the kernels carve their buffers at
    offsets aligned for each buffer (lib/Kernels/KernelBuilder), 128-byte
    swizzled atoms at 1024 bytes, because the hardware takes the swizzle from
    address bits 7-9 (of wgmma's reads as of the copies' writes), and the
    alignment makes those offsets addresses' alignments too. A zero-length
    shared global with an initializer is an error.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"1024",
           "Bytes the dynamic shared-memory symbols are aligned to (a power "
           "of two)">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def NvvmExp2 : Pass<"fmha-exp2-to-nvvm", "::mlir::gpu::GPUModuleOp"> {
  let summary = "math.exp2 f32 -> llvm.nvvm.ex2.approx.ftz.f32 (no libdevice)";
  let description = [{
    Run before convert-gpu-to-nvvm, which would otherwise call libdevice's
    __nv_exp2f. Gives one ex2.approx.ftz.f32 instruction per exp2 (results
    below 2^-126 flushed to zero: without .ftz ptxas adds a compare and two
    multiplies to each); f32 vectors are split into elements first.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def NvgpuMmaBf16 : Pass<"fmha-nvgpu-mma-bf16-to-nvvm",
                        "::mlir::gpu::GPUModuleOp"> {
  let summary = "bf16 nvgpu.mma.sync -> nvvm.mma.sync";
  let description = [{
    Upstream convert-nvgpu-to-nvvm rejects bf16 operands. Rewrites
    nvgpu.mma.sync m16n8k16 / m16n8k8 with vector<Nx2xbf16> A and B and a
    vector<2x2xf32> accumulator into nvvm.mma.sync on packed i32 registers
    (mma.sync.aligned.*.row.col.f32.bf16.bf16.f32). Other element types are
    left for convert-nvgpu-to-nvvm.
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::vector::VectorDialect"];
}

#endif // ROCKE_PASSES
