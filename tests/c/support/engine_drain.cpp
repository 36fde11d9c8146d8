#include "engine_drain.hpp"

namespace emqtest {

void EngineDrain::run(echomq_worker *w, int threads, int pause_ms, const std::string &tag) {
  for (int t = 0; t < threads; ++t)
    hosts_.emplace_back([this, w, pause_ms, tag] {
      while (!quit_) {
        echomq_job *j = nullptr;
        if (echomq_worker_next(w, 50, &j) != ECHOMQ_OK) continue;
        {
          std::lock_guard<std::mutex> lk(mu_);
          ++done_[tag][echomq_job_id(j)];
        }
        echomq_worker_done(w, j);
        echomq_job_free(j);
        if (pause_ms) sleep_ms(pause_ms);
      }
    });
}

size_t EngineDrain::count(const std::string &tag) {
  std::lock_guard<std::mutex> lk(mu_);
  return done_[tag].size();
}

void EngineDrain::wait_for(size_t n, int64_t ms, const std::string &tag) {
  const int64_t deadline = mono_ms() + ms;
  while (count(tag) < n && mono_ms() < deadline) sleep_ms(10);
}

void EngineDrain::stop() {
  quit_ = true;
  for (auto &t : hosts_) t.join();
  hosts_.clear();
}

void EngineDrain::require_each_once(size_t n, const std::string &tag) {
  std::lock_guard<std::mutex> lk(mu_);
  CHECK(done_[tag].size() == n);
  for (const auto &[id, k] : done_[tag]) {
    INFO("job " << id << (tag.empty() ? "" : " of ") << tag);
    CHECK(k == 1);  // handed out once: no lease lost, none delivered twice
  }
}

void EngineDrain::add_engine(const std::string &url, const std::string &queue, const echomq_worker_options &o,
                             int threads, int pause_ms, const std::string &tag) {
  echomq_worker *w = nullptr;
  REQUIRE(echomq_worker_new(&w, url.c_str(), queue.c_str(), &o) == ECHOMQ_OK);
  engines_.emplace_back(w);
  REQUIRE(echomq_worker_start(w) == ECHOMQ_OK);
  run(w, threads, pause_ms, tag);
}

void EngineDrain::finish(size_t n, int64_t ms, const std::string &tag) {
  wait_for(n, ms, tag);
  for (auto &w : engines_) CHECK(echomq_worker_stop(w.get(), ECHOMQ_STOP_DRAIN, 10000) == ECHOMQ_OK);
  stop();
  require_each_once(n, tag);
}

std::vector<std::string> shard_names(echomq_client *c, const std::string &queue) {
  echomq_report *r = nullptr;
  EMQ_REQUIRE_OK(c, echomq_shards(c, queue.c_str(), &r));
  std::vector<std::string> out;
  for (size_t i = 0; i < echomq_report_count(r); ++i) out.push_back(echomq_report_at(r, i));
  echomq_report_free(r);
  return out;
}

}  // namespace emqtest
