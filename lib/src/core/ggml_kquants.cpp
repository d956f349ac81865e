// ggml's K-quants (256 elements per super-block: Q2_K, Q3_K, Q4_K, Q5_K,
// Q6_K), quantize_row_*_ref and dequantize_row_* written in our own words
// after ggml-org/ggml's src/ggml-quants.c at the commit ggml_types.cpp names,
// bit for bit as it says; ggml_types.cpp's codec table calls them a block at
// a time.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "ggml_blocks.h"

namespace embedpe::ggml {
namespace {

// make_qx_quants with rmse_type 1 and no importance weights (what Q6_K's
// reference uses): a symmetric scale for n values in [-nmax, nmax), refined
// over 18 trial scales by weighted least squares (weights x²). L gets l + nmax.
float make_qx_quants(int n, int nmax, const float* x, std::int8_t* L) {
  const float max = signed_absmax(x, n), amax = std::fabs(max);
  if (amax < 1e-15f) {  // GROUP_MAX_EPS: all zero
    for (int i = 0; i < n; ++i) L[i] = 0;
    return 0.f;
  }
  float iscale = static_cast<float>(-nmax) / max;
  float sumlx = 0, suml2 = 0;
  for (int i = 0; i < n; ++i) {
    const int l = clamp_int(nearest_int(iscale * x[i]), -nmax, nmax - 1);
    L[i] = static_cast<std::int8_t>(l + nmax);
    const float w = x[i] * x[i];
    sumlx += w * x[i] * static_cast<float>(l);
    suml2 += w * static_cast<float>(l) * static_cast<float>(l);
  }
  float scale = suml2 != 0.0f ? sumlx / suml2 : 0.0f;
  float best = scale * sumlx;
  for (int is = -9; is <= 9; ++is) {
    if (is == 0) continue;
    iscale = -(static_cast<float>(nmax) + 0.1f * static_cast<float>(is)) / max;
    sumlx = suml2 = 0;
    for (int i = 0; i < n; ++i) {
      const int l = clamp_int(nearest_int(iscale * x[i]), -nmax, nmax - 1);
      const float w = x[i] * x[i];
      sumlx += w * x[i] * static_cast<float>(l);
      suml2 += w * static_cast<float>(l) * static_cast<float>(l);
    }
    if (suml2 > 0 && sumlx * sumlx > best * suml2) {
      for (int i = 0; i < n; ++i) {
        L[i] = static_cast<std::int8_t>(nmax + clamp_int(nearest_int(iscale * x[i]), -nmax, nmax - 1));
      }
      scale = sumlx / suml2;
      best = scale * sumlx;
    }
  }
  return scale;
}

// make_q3_quants with do_rmse: as above for nmax 4, then up to five passes
// that move single values to a better level. L gets l + nmax.
float make_q3_quants(int n, int nmax, const float* x, std::int8_t* L) {
  const float max = signed_absmax(x, n), amax = std::fabs(max);
  if (amax < 1e-15f) {
    for (int i = 0; i < n; ++i) L[i] = 0;
    return 0.f;
  }
  const float iscale = static_cast<float>(-nmax) / max;
  float sumlx = 0, suml2 = 0;
  for (int i = 0; i < n; ++i) {
    const int l = clamp_int(nearest_int(iscale * x[i]), -nmax, nmax - 1);
    L[i] = static_cast<std::int8_t>(l);
    const float w = x[i] * x[i];
    sumlx += w * x[i] * static_cast<float>(l);
    suml2 += w * static_cast<float>(l) * static_cast<float>(l);
  }
  for (int itry = 0; itry < 5; ++itry) {
    int n_changed = 0;
    for (int i = 0; i < n; ++i) {
      const float w = x[i] * x[i];
      float slx = sumlx - w * x[i] * static_cast<float>(L[i]);
      if (slx > 0) {
        float sl2 = suml2 - w * static_cast<float>(L[i]) * static_cast<float>(L[i]);
        const int new_l = clamp_int(nearest_int(x[i] * sl2 / slx), -nmax, nmax - 1);
        if (new_l != L[i]) {
          slx += w * x[i] * static_cast<float>(new_l);
          sl2 += w * static_cast<float>(new_l) * static_cast<float>(new_l);
          if (sl2 > 0 && slx * slx * suml2 > sumlx * sumlx * sl2) {
            L[i] = static_cast<std::int8_t>(new_l);
            sumlx = slx;
            suml2 = sl2;
            ++n_changed;
          }
        }
      }
    }
    if (!n_changed) break;
  }
  for (int i = 0; i < n; ++i) L[i] = static_cast<std::int8_t>(L[i] + nmax);
  return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

// make_qkx2_quants: an asymmetric scale and min (x ≈ scale·L − the_min, the
// min never above 0) for n values in [0, nmax], searched over nstep + 1 trial
// scales by weighted least squares; use_mad weighs absolute, not squared,
// errors. Laux: n scratch levels.
float make_qkx2_quants(int n, int nmax, const float* x, const float* weights, std::uint8_t* L, float* the_min,
                       std::uint8_t* Laux, float rmin, float rdelta, int nstep, bool use_mad) {
  float min = x[0], max = x[0];
  float sum_w = weights[0];
  float sum_x = sum_w * x[0];
  for (int i = 1; i < n; ++i) {
    if (x[i] < min) min = x[i];
    if (x[i] > max) max = x[i];
    const float w = weights[i];
    sum_w += w;
    sum_x += w * x[i];
  }
  if (min > 0) min = 0;
  if (max == min) {
    for (int i = 0; i < n; ++i) L[i] = 0;
    *the_min = -min;
    return 0.f;
  }
  float iscale = static_cast<float>(nmax) / (max - min);
  float scale = 1 / iscale;
  float best_error = 0;
  for (int i = 0; i < n; ++i) {
    const int l = nearest_int(iscale * (x[i] - min));
    L[i] = static_cast<std::uint8_t>(clamp_int(l, 0, nmax));
    float diff = scale * static_cast<float>(L[i]) + min - x[i];
    diff = use_mad ? std::fabs(diff) : diff * diff;
    best_error += weights[i] * diff;
  }
  for (int is = 0; is <= nstep; ++is) {
    iscale = (rmin + rdelta * static_cast<float>(is) + static_cast<float>(nmax)) / (max - min);
    float sum_l = 0, sum_l2 = 0, sum_xl = 0;
    for (int i = 0; i < n; ++i) {
      const int l = clamp_int(nearest_int(iscale * (x[i] - min)), 0, nmax);
      Laux[i] = static_cast<std::uint8_t>(l);
      const float w = weights[i], fl = static_cast<float>(l);
      sum_l += w * fl;
      sum_l2 += w * fl * fl;
      sum_xl += w * fl * x[i];
    }
    const float D = sum_w * sum_l2 - sum_l * sum_l;
    if (D > 0) {
      float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
      float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
      if (this_min > 0) {
        this_min = 0;
        this_scale = sum_xl / sum_l2;
      }
      float cur_error = 0;
      for (int i = 0; i < n; ++i) {
        float diff = this_scale * static_cast<float>(Laux[i]) + this_min - x[i];
        diff = use_mad ? std::fabs(diff) : diff * diff;
        cur_error += weights[i] * diff;
      }
      if (cur_error < best_error) {
        std::copy(Laux, Laux + n, L);
        best_error = cur_error;
        scale = this_scale;
        min = this_min;
      }
    }
  }
  *the_min = -min;
  return scale;
}

// Q4_K/Q5_K pack eight 6-bit scales and eight 6-bit mins in 12 bytes.
void scale_min_k4(int j, const std::uint8_t* q, std::uint8_t& d, std::uint8_t& m) {
  if (j < 4) {
    d = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    d = static_cast<std::uint8_t>((q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4));
    m = static_cast<std::uint8_t>((q[j + 4] >> 4) | ((q[j] >> 6) << 4));
  }
}

// Sub-blocks `is` and `is` + 1 of a Q4_K/Q5_K super-block whose factors are `d` and `min`:
// {d1, m1, d2, m2}, each scale d × sc and each min min × m, as ggml's dequantize_row_q{4,5}_K.
std::array<float, 4> scales_k4(int is, const std::uint8_t* sq, float d, float min) {
  std::uint8_t sc, m;
  scale_min_k4(is, sq, sc, m);
  const float d1 = d * static_cast<float>(sc), m1 = min * static_cast<float>(m);
  scale_min_k4(is + 1, sq, sc, m);
  return {d1, m1, d * static_cast<float>(sc), min * static_cast<float>(m)};
}

// Four 2-bit values per byte: byte l of each 32 holds elements l, l+32, l+64, l+96.
template <class Level>
void pack_2bit(const Level* L, std::uint8_t* qs) {
  for (std::size_t j = 0; j < QK_K; j += 128) {
    for (std::size_t l = 0; l < 32; ++l) {
      qs[j / 4 + l] = static_cast<std::uint8_t>(L[j + l] | (L[j + l + 32] << 2) | (L[j + l + 64] << 4) |
                                                (L[j + l + 96] << 6));
    }
  }
}

}  // namespace

void quantize_q2_K(const float* x, std::uint8_t* b) {  // b: scales[16], qs[64], d, dmin
  std::uint8_t* scales_q = b;
  std::uint8_t* qs = b + 16;
  std::uint8_t L[QK_K], Laux[16];
  float weights[16], mins[QK_K / 16], scales[QK_K / 16];
  const float q4scale = 15.f;
  float max_scale = 0, max_min = 0;
  for (std::size_t j = 0; j < QK_K / 16; ++j) {
    for (std::size_t l = 0; l < 16; ++l) weights[l] = std::fabs(x[16 * j + l]);
    scales[j] = make_qkx2_quants(16, 3, x + 16 * j, weights, L + 16 * j, &mins[j], Laux, -0.5f, 0.1f, 15, true);
    if (scales[j] > max_scale) max_scale = scales[j];
    if (mins[j] > max_min) max_min = mins[j];
  }
  if (max_scale > 0) {
    const float iscale = q4scale / max_scale;
    for (std::size_t j = 0; j < QK_K / 16; ++j) scales_q[j] = low8(nearest_int(iscale * scales[j]));
    put_fp16(b + 80, max_scale / q4scale);
  } else {
    for (std::size_t j = 0; j < QK_K / 16; ++j) scales_q[j] = 0;
    put_fp16(b + 80, 0.f);
  }
  if (max_min > 0) {
    const float iscale = q4scale / max_min;
    for (std::size_t j = 0; j < QK_K / 16; ++j) {
      // unsigned: the low 4 bits of nearest_int, whatever its sign, as ggml's uint8 store keeps them
      const auto l = static_cast<unsigned>(nearest_int(iscale * mins[j]));
      scales_q[j] = static_cast<std::uint8_t>(scales_q[j] | (l << 4));
    }
    put_fp16(b + 82, max_min / q4scale);
  } else {
    put_fp16(b + 82, 0.f);
  }
  for (std::size_t j = 0; j < QK_K / 16; ++j) {
    const float d = fp16(b + 80) * static_cast<float>(scales_q[j] & 0xF);
    if (d == 0.0f) continue;
    const float dm = fp16(b + 82) * static_cast<float>(scales_q[j] >> 4);
    for (std::size_t i = 0; i < 16; ++i) {
      L[16 * j + i] = static_cast<std::uint8_t>(clamp_int(nearest_int((x[16 * j + i] + dm) / d), 0, 3));
    }
  }
  pack_2bit(L, qs);
}

void dequantize_q2_K(const std::uint8_t* b, float* y) {
  const std::uint8_t* scales = b;
  const std::uint8_t* q = b + 16;
  const float d = fp16(b + 80), min = fp16(b + 82);
  int is = 0;
  for (std::size_t n = 0; n < QK_K; n += 128) {
    for (int shift = 0; shift < 8; shift += 2) {
      for (int half = 0; half < 2; ++half) {  // elements l and l + 16 of each 32 take their own scale
        const std::uint8_t sc = scales[is++];
        const float dl = d * static_cast<float>(sc & 0xF), ml = min * static_cast<float>(sc >> 4);
        for (int l = 0; l < 16; ++l) *y++ = dl * static_cast<float>((q[l + 16 * half] >> shift) & 3) - ml;
      }
    }
    q += 32;
  }
}

void quantize_q3_K(const float* x, std::uint8_t* b) {  // b: hmask[32], qs[64], scales[12], d
  std::uint8_t* hmask = b;
  std::uint8_t* qs = b + 32;
  std::uint8_t* sq = b + 96;
  std::int8_t L[QK_K];
  float scales[QK_K / 16];
  for (std::size_t j = 0; j < QK_K / 16; ++j) scales[j] = make_q3_quants(16, 4, x + 16 * j, L + 16 * j);
  const float max_scale = signed_absmax(scales, QK_K / 16);
  std::memset(sq, 0, 12);
  if (max_scale != 0.0f) {
    const float iscale = -32.f / max_scale;
    for (std::size_t j = 0; j < QK_K / 16; ++j) {
      // 6 bits: the low 4 in sq[j % 8] (low or high nibble), the top 2 in sq[8 + j % 4]
      std::int8_t l = static_cast<std::int8_t>(nearest_int(iscale * scales[j]));
      l = static_cast<std::int8_t>(clamp_int<int>(l, -32, 31) + 32);
      if (j < 8) {
        sq[j] = static_cast<std::uint8_t>(l & 0xF);
      } else {
        sq[j - 8] = static_cast<std::uint8_t>(sq[j - 8] | ((l & 0xF) << 4));
      }
      l = static_cast<std::int8_t>(l >> 4);
      sq[j % 4 + 8] = static_cast<std::uint8_t>(sq[j % 4 + 8] | (l << (2 * (j / 4))));
    }
    put_fp16(b + 108, 1 / iscale);
  } else {
    put_fp16(b + 108, 0.f);
  }
  for (std::size_t j = 0; j < QK_K / 16; ++j) {
    int sc = j < 8 ? sq[j] & 0xF : sq[j - 8] >> 4;
    sc = static_cast<std::int8_t>((sc | (((sq[8 + j % 4] >> (2 * (j / 4))) & 3) << 4)) - 32);
    const float d = fp16(b + 108) * static_cast<float>(sc);
    if (d == 0.0f) continue;
    for (std::size_t i = 0; i < 16; ++i) {
      L[16 * j + i] = static_cast<std::int8_t>(clamp_int(nearest_int(x[16 * j + i] / d), -4, 3) + 4);
    }
  }
  // The high bit of element j goes to bit j / 32 of hmask[j % 32].
  std::memset(hmask, 0, QK_K / 8);
  for (std::size_t j = 0; j < QK_K; ++j) {
    if (L[j] > 3) {
      hmask[j % 32] = static_cast<std::uint8_t>(hmask[j % 32] | (1u << (j / 32)));
      L[j] = static_cast<std::int8_t>(L[j] - 4);
    }
  }
  pack_2bit(L, qs);
}

void dequantize_q3_K(const std::uint8_t* b, float* y) {
  const std::uint8_t* hm = b;
  const std::uint8_t* q = b + 32;
  const std::uint8_t* sq = b + 96;
  const float d_all = fp16(b + 108);
  std::int8_t scales[16];  // 6-bit, unpacked as quantize_q3_K packed them
  for (int j = 0; j < 16; ++j) {
    const int low = j < 8 ? sq[j] & 0xF : sq[j - 8] >> 4;
    scales[j] = static_cast<std::int8_t>(low | (((sq[8 + j % 4] >> (2 * (j / 4))) & 3) << 4));
  }
  int is = 0;
  std::uint8_t m = 1;
  for (std::size_t n = 0; n < QK_K; n += 128) {
    for (int shift = 0; shift < 8; shift += 2) {
      for (int half = 0; half < 2; ++half) {
        const float dl = d_all * static_cast<float>(scales[is++] - 32);
        for (int l = 16 * half; l < 16 * half + 16; ++l) {
          *y++ = dl * static_cast<float>(((q[l] >> shift) & 3) - ((hm[l] & m) ? 0 : 4));
        }
      }
      m = static_cast<std::uint8_t>(m << 1);
    }
    q += 32;
  }
}

namespace {

// Q4_K and Q5_K share all but the level count and the search's parameters.
void quantize_qk_scale_min(const float* x, std::uint8_t* b, int nmax, float rmin, int nstep, std::uint8_t* L) {
  // b: d, dmin, scales[12], ...
  std::uint8_t Laux[32];
  float weights[32], mins[QK_K / 32], scales[QK_K / 32];
  float max_scale = 0, max_min = 0;
  for (std::size_t j = 0; j < QK_K / 32; ++j) {
    float sum_x2 = 0;
    for (std::size_t l = 0; l < 32; ++l) sum_x2 += x[32 * j + l] * x[32 * j + l];
    const float av_x = std::sqrt(sum_x2 / 32);
    for (std::size_t l = 0; l < 32; ++l) weights[l] = av_x + std::fabs(x[32 * j + l]);
    scales[j] = make_qkx2_quants(32, nmax, x + 32 * j, weights, L + 32 * j, &mins[j], Laux, rmin, 0.1f, nstep, false);
    if (scales[j] > max_scale) max_scale = scales[j];
    if (mins[j] > max_min) max_min = mins[j];
  }
  std::uint8_t* sq = b + 4;
  const float inv_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
  const float inv_min = max_min > 0 ? 63.f / max_min : 0.f;
  for (std::size_t j = 0; j < QK_K / 32; ++j) {
    const std::uint8_t ls = std::min<std::uint8_t>(63, low8(nearest_int(inv_scale * scales[j])));
    const std::uint8_t lm = std::min<std::uint8_t>(63, low8(nearest_int(inv_min * mins[j])));
    if (j < 4) {
      sq[j] = ls;
      sq[j + 4] = lm;
    } else {
      sq[j + 4] = static_cast<std::uint8_t>((ls & 0xF) | ((lm & 0xF) << 4));
      sq[j - 4] = static_cast<std::uint8_t>(sq[j - 4] | ((ls >> 4) << 6));
      sq[j] = static_cast<std::uint8_t>(sq[j] | ((lm >> 4) << 6));
    }
  }
  put_fp16(b, max_scale / 63.f);
  put_fp16(b + 2, max_min / 63.f);
  for (std::size_t j = 0; j < QK_K / 32; ++j) {
    std::uint8_t sc, m;
    scale_min_k4(static_cast<int>(j), sq, sc, m);
    const float d = fp16(b) * static_cast<float>(sc);
    if (d == 0.0f) continue;
    const float dm = fp16(b + 2) * static_cast<float>(m);
    for (std::size_t i = 0; i < 32; ++i) {
      L[32 * j + i] = static_cast<std::uint8_t>(clamp_int(nearest_int((x[32 * j + i] + dm) / d), 0, nmax));
    }
  }
}

}  // namespace

void quantize_q4_K(const float* x, std::uint8_t* b) {  // b: d, dmin, scales[12], qs[128]
  std::uint8_t L[QK_K];
  quantize_qk_scale_min(x, b, 15, -1.f, 20, L);
  std::uint8_t* q = b + 16;
  for (std::size_t j = 0; j < QK_K; j += 64, q += 32) {  // byte l: element l low, element l + 32 high
    for (std::size_t l = 0; l < 32; ++l) q[l] = static_cast<std::uint8_t>(L[j + l] | (L[j + l + 32] << 4));
  }
}

void dequantize_q4_K(const std::uint8_t* b, float* y) {
  const float d = fp16(b), min = fp16(b + 2);
  const std::uint8_t* sq = b + 4;
  const std::uint8_t* q = b + 16;
  for (int is = 0; is < 8; is += 2, q += 32) {
    const auto [d1, m1, d2, m2] = scales_k4(is, sq, d, min);
    for (int l = 0; l < 32; ++l) *y++ = d1 * static_cast<float>(q[l] & 0xF) - m1;
    for (int l = 0; l < 32; ++l) *y++ = d2 * static_cast<float>(q[l] >> 4) - m2;
  }
}

void quantize_q5_K(const float* x, std::uint8_t* b) {  // b: d, dmin, scales[12], qh[32], qs[128]
  std::uint8_t L[QK_K];
  quantize_qk_scale_min(x, b, 31, -0.5f, 15, L);
  std::uint8_t* qh = b + 16;
  std::uint8_t* ql = b + 48;
  std::memset(qh, 0, 32);
  std::uint8_t m1 = 1, m2 = 2;
  for (std::size_t n = 0; n < QK_K; n += 64, ql += 32) {
    for (std::size_t j = 0; j < 32; ++j) {
      int l1 = L[n + j], l2 = L[n + j + 32];
      if (l1 > 15) {
        l1 -= 16;
        qh[j] |= m1;
      }
      if (l2 > 15) {
        l2 -= 16;
        qh[j] |= m2;
      }
      ql[j] = static_cast<std::uint8_t>(l1 | (l2 << 4));
    }
    m1 = static_cast<std::uint8_t>(m1 << 2);
    m2 = static_cast<std::uint8_t>(m2 << 2);
  }
}

void dequantize_q5_K(const std::uint8_t* b, float* y) {
  const float d = fp16(b), min = fp16(b + 2);
  const std::uint8_t* sq = b + 4;
  const std::uint8_t* qh = b + 16;
  const std::uint8_t* ql = b + 48;
  std::uint8_t u1 = 1, u2 = 2;
  for (int is = 0; is < 8; is += 2, ql += 32) {
    const auto [d1, m1, d2, m2] = scales_k4(is, sq, d, min);
    for (int l = 0; l < 32; ++l) *y++ = d1 * static_cast<float>((ql[l] & 0xF) + (qh[l] & u1 ? 16 : 0)) - m1;
    for (int l = 0; l < 32; ++l) *y++ = d2 * static_cast<float>((ql[l] >> 4) + (qh[l] & u2 ? 16 : 0)) - m2;
    u1 = static_cast<std::uint8_t>(u1 << 2);
    u2 = static_cast<std::uint8_t>(u2 << 2);
  }
}

void quantize_q6_K(const float* x, std::uint8_t* b) {  // b: ql[128], qh[64], scales[16] (int8), d
  std::int8_t L[QK_K];
  float scales[QK_K / 16];
  for (std::size_t ib = 0; ib < QK_K / 16; ++ib) scales[ib] = make_qx_quants(16, 32, x + 16 * ib, L + 16 * ib);
  const float max_scale = signed_absmax(scales, QK_K / 16), max_abs_scale = std::fabs(max_scale);
  if (max_abs_scale < 1e-15f) {  // GROUP_MAX_EPS
    std::memset(b, 0, 210);
    return;
  }
  std::uint8_t* sq = b + 192;
  const float iscale = -128.f / max_scale;
  put_fp16(b + 208, 1 / iscale);
  for (std::size_t ib = 0; ib < QK_K / 16; ++ib) sq[ib] = low8(std::min(127, nearest_int(iscale * scales[ib])));
  for (std::size_t j = 0; j < QK_K / 16; ++j) {
    const float d = fp16(b + 208) * static_cast<float>(static_cast<std::int8_t>(sq[j]));
    if (d == 0.0f) continue;
    for (std::size_t i = 0; i < 16; ++i) {
      L[16 * j + i] = static_cast<std::int8_t>(clamp_int(nearest_int(x[16 * j + i] / d), -32, 31) + 32);
    }
  }
  // Per 128 elements: ql's 64 bytes hold the low nibbles of l, l + 64 (byte l)
  // and l + 32, l + 96 (byte l + 32); qh's 32 the top 2 bits of all four.
  std::uint8_t* ql = b;
  std::uint8_t* qh = b + 128;
  for (std::size_t j = 0; j < QK_K; j += 128, ql += 64, qh += 32) {
    for (std::size_t l = 0; l < 32; ++l) {
      const int q1 = L[j + l] & 0xF, q2 = L[j + l + 32] & 0xF, q3 = L[j + l + 64] & 0xF, q4 = L[j + l + 96] & 0xF;
      ql[l] = static_cast<std::uint8_t>(q1 | (q3 << 4));
      ql[l + 32] = static_cast<std::uint8_t>(q2 | (q4 << 4));
      qh[l] = static_cast<std::uint8_t>((L[j + l] >> 4) | ((L[j + l + 32] >> 4) << 2) | ((L[j + l + 64] >> 4) << 4) |
                                        ((L[j + l + 96] >> 4) << 6));
    }
  }
}

void dequantize_q6_K(const std::uint8_t* b, float* y) {
  const float d = fp16(b + 208);
  const std::uint8_t* ql = b;
  const std::uint8_t* qh = b + 128;
  const std::uint8_t* sq = b + 192;
  for (std::size_t n = 0; n < QK_K; n += 128, y += 128, ql += 64, qh += 32, sq += 8) {
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
      const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
      const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
      const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      auto s = [&](int k) { return static_cast<float>(static_cast<std::int8_t>(sq[is + k])); };
      y[l] = d * s(0) * static_cast<float>(q1);
      y[l + 32] = d * s(2) * static_cast<float>(q2);
      y[l + 64] = d * s(4) * static_cast<float>(q3);
      y[l + 96] = d * s(6) * static_cast<float>(q4);
    }
  }
}
}  // namespace embedpe::ggml
