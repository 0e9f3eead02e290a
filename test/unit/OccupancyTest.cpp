//===- OccupancyTest.cpp - chip table: occupancy limits and atoms ---------===//
//
// Expected values worked by hand from the CDNA limits in lib/Target/ChipInfo: 512
// unified VGPRs per SIMD lane in blocks of 8, at most 8 waves per SIMD, the
// GFX8+ SGPR table, LDS per CU shared by workgroups spread over 4 SIMDs.
//
//===----------------------------------------------------------------------===//
#include "lib/Target/ChipInfo.h"
#include "lib/Target/FragmentLayout.h"

#include <gtest/gtest.h>

using rocke::computeOccupancy;
using rocke::lookupChip;

TEST(Occupancy, VgprsLimitInBlocksOfEight) {
  rocke::ChipInfo gfx942 = *lookupChip("gfx942");
  EXPECT_EQ(computeOccupancy(gfx942, 64, 32, 0, 256).wavesPerSimd, 8u);
  EXPECT_EQ(computeOccupancy(gfx942, 65, 32, 0, 256).wavesPerSimd, 7u);
  EXPECT_EQ(computeOccupancy(gfx942, 128, 32, 0, 256).wavesPerSimd, 4u);
  EXPECT_EQ(computeOccupancy(gfx942, 256, 32, 0, 256).wavesPerSimd, 2u);
  rocke::Occupancy full = computeOccupancy(gfx942, 512, 32, 0, 256);
  EXPECT_EQ(full.wavesPerSimd, 1u);
  EXPECT_EQ(full.limiter, "vgprs");
}

TEST(Occupancy, SgprTable) {
  rocke::ChipInfo gfx90a = *lookupChip("gfx90a");
  EXPECT_EQ(computeOccupancy(gfx90a, 8, 100, 0, 64).wavesPerSimd, 8u);
  rocke::Occupancy many = computeOccupancy(gfx90a, 8, 102, 0, 64);
  EXPECT_EQ(many.wavesPerSimd, 7u);
  EXPECT_EQ(many.limiter, "sgprs");
}

TEST(Occupancy, LdsSharedByWorkgroupsOfTheCU) {
  rocke::ChipInfo gfx942 = *lookupChip("gfx942");
  rocke::ChipInfo gfx950 = *lookupChip("gfx950");
  // 32 KiB per 256-wide workgroup: 2 workgroups x 4 waves over 4 SIMDs.
  rocke::Occupancy two = computeOccupancy(gfx942, 32, 32, 32 * 1024, 256);
  EXPECT_EQ(two.wavesPerSimd, 2u);
  EXPECT_EQ(two.limiter, "lds");
  // gfx950's 160 KiB holds 5 of them.
  EXPECT_EQ(computeOccupancy(gfx950, 32, 32, 32 * 1024, 256).wavesPerSimd, 5u);
  // Allocation rounds up to 512 bytes: 16385 bytes take 16896, 3 per CU.
  EXPECT_EQ(computeOccupancy(gfx942, 32, 32, 16385, 256).wavesPerSimd, 3u);
  // More LDS than a CU has: the kernel cannot run.
  EXPECT_EQ(computeOccupancy(gfx942, 32, 32, 65 * 1024, 256).wavesPerSimd, 0u);
}

// Every atom a chip lists exists in lib/Target/FragmentLayout for both element types
// and matches the chip's subgroup width, so the tiled strategy can use it.
TEST(ChipInfo, AtomsExistWithTheChipsSubgroupWidth) {
  for (rocke::GpuVendor vendor :
       {rocke::GpuVendor::Amd, rocke::GpuVendor::Nvidia})
    for (const rocke::ChipInfo &chip : rocke::getSupportedChips(vendor)) {
      ASSERT_FALSE(chip.matrixAtoms.empty()) << chip.name.str();
      for (llvm::StringRef atom : chip.matrixAtoms)
        for (const char *suffix : {"_f16", "_bf16"}) {
          const rocke::MatrixAtom *a =
              rocke::lookupAtom(atom.str() + suffix);
          ASSERT_NE(a, nullptr) << chip.name.str() << " " << atom.str();
          EXPECT_EQ(unsigned(a->lanes), chip.waveSize) << chip.name.str();
        }
      EXPECT_GT(chip.workgroupMemoryBytes, 0u) << chip.name.str();
    }
  // Lookups keep the vendors apart.
  EXPECT_TRUE(rocke::lookupChip("sm_90", rocke::GpuVendor::Nvidia));
  EXPECT_FALSE(rocke::lookupChip("sm_90", rocke::GpuVendor::Amd));
  EXPECT_FALSE(rocke::lookupChip("gfx1100"));
}
