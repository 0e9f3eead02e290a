// RUN: rocke-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{window extents must be non-negative, got left = -5, right = 0}}
func.func private @negative() attributes {m = #fmha.mask<sliding_window, left = -5, right = 0>}

// -----

// -1 is a negative extent, not "no extent" (it used to be the absent
// extents' marker, so a causal mask with both at -1 passed as plain causal).
// expected-error @+1 {{window extents must be non-negative, got left = -1, right = -1}}
func.func private @minus_one() attributes {m = #fmha.mask<causal, left = -1, right = -1>}

// -----

// expected-error @+1 {{window extents must be non-negative, got left = none, right = -1}}
func.func private @minus_one_right() attributes {m = #fmha.mask<none, right = -1>}

// -----

// Extents near INT64_MAX overflowed the band arithmetic (q + off + right):
// wrong masks, non-finite gradients. 2^40 is longer than any sequence.
// expected-error @+1 {{window extents must be at most 1099511627776 (2^40, longer than any sequence), got left = 0, right = 9223372036854775807}}
func.func private @huge_right() attributes {m = #fmha.mask<sliding_window, left = 0, right = 9223372036854775807>}

// -----

// expected-error @+1 {{window extents must be at most 1099511627776}}
func.func private @huge_one_sided() attributes {m = #fmha.mask<one_sided_window, left = 1099511627777>}

// -----

// expected-error @+1 {{sliding_window needs both 'left' and 'right' extents}}
func.func private @missing_right() attributes {m = #fmha.mask<sliding_window, left = 16>}

// -----

// expected-error @+1 {{mask kind 'causal' takes no window extents}}
func.func private @causal_extent() attributes {m = #fmha.mask<causal, left = 16>}

// -----

// expected-error @+1 {{mask kind 'none' takes no alignment}}
func.func private @none_alignment() attributes {m = #fmha.mask<none, alignment = bottom_right>}

// -----

// expected-error @+1 {{one_sided_window needs a window 'left' >= 1}}
func.func private @one_sided_zero() attributes {m = #fmha.mask<one_sided_window, left = 0>}

// -----

// expected-error @+1 {{one_sided_window takes no 'right' extent}}
func.func private @one_sided_right() attributes {m = #fmha.mask<one_sided_window, left = 4, right = 2>}

// -----

// expected-error @+2 {{expected ::rocke::fmha::MaskKind to be one of: none, causal, sliding_window, one_sided_window}}
// expected-error @+1 {{failed to parse Fmha_MaskAttr parameter 'kind'}}
func.func private @unknown_kind() attributes {m = #fmha.mask<diagonal>}

// -----

// expected-error @+2 {{expected ::rocke::fmha::StatsEncoding to be one of: lse, log2_max_sum}}
// expected-error @+1 {{failed to parse Fmha_StatsEncodingAttr parameter 'value'}}
func.func private @unknown_stats() attributes {s = #fmha.stats<log10>}
