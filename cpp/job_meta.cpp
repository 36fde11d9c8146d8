#include "job_meta.hpp"

#include "error.hpp"

namespace echomq {

namespace {

// A name, key or value: no control character (the stored form uses "\n"
// and "\t" as separators).
void checkText(std::string_view s, const char* what) {
  for (unsigned char ch : s)
    if (ch < 0x20 || ch == 0x7f) invalid(std::string(what) + " holds a control character");
}

}  // namespace

std::string encodeMeta(std::string_view name, const std::vector<std::pair<std::string_view, std::string_view>>& headers) {
  if (name.size() > kJobNameMax)
    fail(kTooLarge, "job name of " + std::to_string(name.size()) + " bytes is over the limit of " +
                        std::to_string(kJobNameMax));
  checkText(name, "job name");
  if (headers.size() > kHeadersMax)
    fail(kTooLarge, std::to_string(headers.size()) + " headers are over the limit of " + std::to_string(kHeadersMax));
  size_t bytes = 0;
  for (size_t i = 0; i < headers.size(); ++i) {
    const auto& [k, v] = headers[i];
    if (k.empty()) invalid("header key is empty");
    checkText(k, "header key");
    checkText(v, "header value");
    for (size_t j = 0; j < i; ++j)
      if (headers[j].first == k) invalid("header key \"" + std::string(k) + "\" is given twice");
    bytes += k.size() + v.size();
  }
  if (bytes > kHeadersBytesMax)
    fail(kTooLarge, "headers of " + std::to_string(bytes) + " bytes are over the limit of " +
                        std::to_string(kHeadersBytesMax));
  if (name.empty() && headers.empty()) return {};
  std::string out(name);
  out.reserve(name.size() + bytes + 2 * headers.size());
  for (const auto& [k, v] : headers) {
    out += '\n';
    out += k;
    out += '\t';
    out += v;
  }
  return out;
}

void readMeta(std::string_view meta, Job& j) {
  j.headers.clear();
  size_t nl = meta.find('\n');
  j.name.assign(meta.substr(0, nl));
  while (nl != std::string_view::npos) {
    meta.remove_prefix(nl + 1);
    nl = meta.find('\n');
    std::string_view h = meta.substr(0, nl);
    size_t tab = h.find('\t');
    if (tab == std::string_view::npos || tab == 0)
      fail(kProto, "malformed job headers (a library/script version mismatch?)");
    j.headers.emplace_back(std::string(h.substr(0, tab)), std::string(h.substr(tab + 1)));
  }
}

std::string mergeMeta(std::string_view own, std::string_view call) {
  if (own.empty() || call.empty()) return std::string(own.empty() ? call : own);
  Job o, c;
  readMeta(own, o);
  readMeta(call, c);
  std::vector<std::pair<std::string_view, std::string_view>> h;
  h.reserve(o.headers.size() + c.headers.size());
  for (const auto& [k, v] : c.headers) {
    bool mine = false;
    for (const auto& oh : o.headers) mine = mine || oh.first == k;
    if (!mine) h.emplace_back(k, v);
  }
  for (const auto& [k, v] : o.headers) h.emplace_back(k, v);
  return encodeMeta(o.name.empty() ? c.name : o.name, h);
}

}  // namespace echomq
