// svg.cpp — the demo's timelines as one self-contained SVG file (no
// dependencies: plain text written with stdio).
#include "demo.hpp"

#include <algorithm>
#include <cstdio>

namespace demo {
namespace {

constexpr int kBins = 240;
constexpr int kLeft = 110, kRight = 20, kPlotW = 720;
constexpr int kRowH = 16, kPanelGap = 46, kTop = 52;

const char *colour(const Producer &p) {
  if (p.heavy) return "#d62728";
  return p.weight != 1 ? "#2ca02c" : "#1f77b4";
}

}  // namespace

bool write_svg(const std::string &path, const std::vector<RoundResult> &rounds) {
  std::FILE *f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  const int width = kLeft + kPlotW + kRight;
  int height = kTop + 10;
  for (const auto &rr : rounds)
    height += int(rr.modes.size()) * (int(rr.producers.size()) * kRowH + kPanelGap);

  std::fprintf(f,
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "font-family=\"sans-serif\" font-size=\"11\">\n"
               "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
               "<text x=\"%d\" y=\"22\" font-size=\"14\" font-weight=\"bold\">EchoMQ demo: "
               "when each producer's jobs were served (darker = more jobs)</text>\n"
               "<text x=\"%d\" y=\"36\" fill=\"#555\"><tspan fill=\"#d62728\">heavy</tspan>"
               " floods its lane (noisy), its jobs weigh 10x (costs); <tspan fill=\"#d62728\">big"
               "</tspan> has 100 lanes (tenants); <tspan fill=\"#2ca02c\">q1</tspan> pays for a "
               "weight (weighted)</text>\n",
               width, height, kLeft, kLeft);
  int top = kTop;
  for (const auto &rr : rounds) {
    const auto &producers = rr.producers;
    const int rows = int(producers.size());
    const double span = double(std::max<int64_t>(rr.axis_us, 1));
    const int64_t axis_us = rr.axis_us;
    for (const ModeResult &r : rr.modes) {
      const int y0 = top + 14;
      top += rows * kRowH + kPanelGap;
      std::fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s: %s</text>\n", kLeft,
                   y0 - 4, round_title(rr.round), mode_title(r.mode));
      std::vector<std::vector<int>> grid(rows, std::vector<int>(kBins, 0));
      for (const auto &s : r.served) {
        int b = std::min(kBins - 1, int(s.claim_us / span * kBins));
        grid[s.producer][b]++;
      }
      for (int p = 0; p < rows; ++p) {
        const int y = y0 + p * kRowH;
        std::string name = producers[p].name;
        if (r.mode == Mode::weighted && producers[p].weight != 1)
          name += " (w" + std::to_string(producers[p].weight) + ")";
        if (producers[p].work != 1) name += " (x" + std::to_string(producers[p].work) + ")";
        if (producers[p].lanes != 1) name += " (" + std::to_string(producers[p].lanes) + " lanes)";
        std::fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", kLeft - 8,
                     y + kRowH - 4, name.c_str());
        std::fprintf(f,
                     "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f4f4f4\"/>\n",
                     kLeft, y + 1, kPlotW, kRowH - 2);
        const int mx = std::max(1, *std::max_element(grid[p].begin(), grid[p].end()));
        const double bw = double(kPlotW) / kBins;
        for (int b = 0; b < kBins; ++b) {
          if (!grid[p][b]) continue;
          std::fprintf(f,
                       "<rect x=\"%.1f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
                       "fill-opacity=\"%.2f\"/>\n",
                       kLeft + b * bw, y + 1, bw + 0.05, kRowH - 2, colour(producers[p]),
                       0.25 + 0.75 * grid[p][b] / mx);
        }
      }
      const int ya = y0 + rows * kRowH + 12;
      for (int t = 0; t <= 4; ++t)
        std::fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%.0f ms</text>\n",
                     kLeft + kPlotW * t / 4, ya, axis_us / 1000.0 * t / 4);
    }
  }
  std::fprintf(f, "</svg>\n");
  return std::fclose(f) == 0;
}

}  // namespace demo
