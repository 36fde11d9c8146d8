// throughput.cpp — claim, wclaim, enqueue, ack and the claim+ack cycle,
// each with 1 and 8 clients, read against the floor; plus the fused
// echomq_ack_claim against ack-then-claim, and client CPU per claim.
#include "common.hpp"
#include "sections.hpp"

#include <algorithm>

namespace bench {
namespace {

constexpr int64_t kLease = 60000;
constexpr uint64_t kLanes = 100;     // lanes of the throughput queue
constexpr size_t kPayload = 16;      // bytes per job

uint64_t ops_for(const Context &ctx, int n) { return n == 1 ? ctx.sz.ops1 : ctx.sz.ops8; }

/// Checks that the queue holds exactly what the run should have left.
void expect(const Context &ctx, echomq_client *c, const std::string &what, uint64_t pending,
            uint64_t leased) {
  if (!ctx.check) return;
  echomq_queue_stats s = stats(c, ctx.queue);
  if (s.pending != pending || s.leased != leased)
    errors().add(what + ": expected " + std::to_string(pending) + " pending and " +
                 std::to_string(leased) + " leased, found " + std::to_string(s.pending) +
                 " and " + std::to_string(s.leased));
}

using Pool = std::vector<std::unique_ptr<Client>>;

/// The hidden reference of every comparison here: the floor, sampled in the
/// same round as the figures it divides.
Variant floor_variant(FloorProbe &probe, uint64_t ops) {
  return {"floor", "floor (paired)", [&probe, ops](int) { return probe.sample(ops / 2); }, true};
}

/// claim: one job per call from a backlogged queue of 100 lanes. Also
/// records the user CPU of the benchmark process per claim.
Variant claim_variant(Context &ctx, int n, Pool &cl, std::vector<double> *cpu_per_million) {
  return {"claim", "claim", [&ctx, n, &cl, cpu_per_million](int) {
    const uint64_t ops = ops_for(ctx, n), share = ops / n;
    const std::string &q = ctx.queue;
    ctx.fresh();
    load(cl[0]->get(), q, kLanes, ops, kPayload);
    double cpu0 = user_cpu_seconds();
    double secs = parallel(n, [&](int i) {
      for (uint64_t k = 0; k < share; ++k) {
        echomq_job *raw = nullptr;
        if (!ok(echomq_claim(cl[i]->get(), q.c_str(), kLease, &raw), cl[i]->get(), "claim"))
          return;
        Job j(raw);
      }
    });
    cpu_per_million->push_back((user_cpu_seconds() - cpu0) / double(share * n) * 1e6);
    expect(ctx, cl[0]->get(), "claim", ops - share * n, share * n);
    return double(share * n) / secs;
  }};
}

/// wclaim: up to K jobs of one lane per call, every lane at weight K.
Variant wclaim_variant(Context &ctx, int n, uint32_t k, Pool &cl) {
  return {"wclaim", "wclaim K=" + std::to_string(k) + " (jobs/s)", [&ctx, n, k, &cl](int) {
    // As many calls as a claim run (capped): comparable run lengths for every K.
    const uint64_t jobs = std::min<uint64_t>(ctx.sz.wclaim_jobs, ops_for(ctx, n) * k);
    const uint64_t share = jobs / n;
    const std::string &q = ctx.queue;
    ctx.fresh();
    ok(echomq_set_default_weight(cl[0]->get(), q.c_str(), k), cl[0]->get(), "set_default_weight");
    load(cl[0]->get(), q, kLanes, jobs + uint64_t(n) * k, kPayload);
    std::vector<uint64_t> got(n, 0);
    double secs = parallel(n, [&](int i) {
      while (got[i] < share) {
        echomq_job_list *raw = nullptr;
        if (!ok(echomq_wclaim(cl[i]->get(), q.c_str(), kLease, k, &raw), cl[i]->get(), "wclaim"))
          return;
        JobList l(raw);
        got[i] += echomq_job_list_count(l.get());
      }
    });
    uint64_t total = 0;
    for (auto g : got) total += g;
    expect(ctx, cl[0]->get(), "wclaim", jobs + uint64_t(n) * k - total, total);
    return double(total) / secs;
  }};
}

Variant enqueue_variant(Context &ctx, int n, Pool &cl) {
  return {"enqueue", "enqueue (one job per call)", [&ctx, n, &cl](int) {
    const uint64_t share = ops_for(ctx, n) / n;
    const std::string &q = ctx.queue;
    const std::string payload(kPayload, 'x');
    std::vector<std::string> lanes;
    for (uint64_t i = 0; i < kLanes; ++i) lanes.push_back(lane_name(i));
    ctx.fresh();
    double secs = parallel(n, [&](int i) {
      for (uint64_t k = 0; k < share; ++k) {
        const std::string &g = lanes[(uint64_t(i) * share + k) % kLanes];
        if (!ok(echomq_enqueue(cl[i]->get(), q.c_str(), g.c_str(), payload.data(), payload.size(),
                               nullptr, nullptr),
                cl[i]->get(), "enqueue"))
          return;
      }
    });
    expect(ctx, cl[0]->get(), "enqueue", share * n, 0);
    return double(share * n) / secs;
  }};
}

Variant bulk_variant(Context &ctx, int n, Pool &cl) {
  const uint32_t bs = ctx.sz.bulk_batch;
  return {"enqueue", "enqueue bulk (echomq_batch of " + std::to_string(bs) + ")",
          [&ctx, n, &cl, bs](int) {
    const uint64_t batches = std::max<uint64_t>(1, ctx.sz.bulk_jobs / bs / n);
    const std::string &q = ctx.queue;
    const std::string payload(kPayload, 'x');
    std::vector<std::string> lanes;
    for (uint64_t i = 0; i < kLanes; ++i) lanes.push_back(lane_name(i));
    ctx.fresh();
    double secs = parallel(n, [&](int i) {
      Batch b(echomq_batch_create());
      for (uint64_t k = 0; k < batches && b; ++k) {
        echomq_batch_clear(b.get());
        for (uint32_t j = 0; j < bs; ++j)
          echomq_batch_add(b.get(), lanes[(k * bs + j) % kLanes].c_str(), payload.data(),
                           payload.size());
        if (!ok(echomq_enqueue_batch(cl[i]->get(), q.c_str(), b.get(), nullptr), cl[i]->get(),
                "enqueue_batch"))
          return;
      }
    });
    expect(ctx, cl[0]->get(), "enqueue bulk", batches * bs * n, 0);
    return double(batches * bs * n) / secs;
  }};
}

struct Lease {
  uint64_t id, token;
};

/// Leases every pending job quickly (wclaim at a high weight); the set-up of
/// the ack measurement, not timed.
std::vector<Lease> lease_all(Context &ctx, echomq_client *c) {
  std::vector<Lease> out;
  const std::string &q = ctx.queue;
  ok(echomq_set_default_weight(c, q.c_str(), 1000), c, "set_default_weight");
  for (;;) {
    echomq_job_list *raw = nullptr;
    int st = echomq_wclaim(c, q.c_str(), kLease, 1000, &raw);
    if (!ok(st, c, "wclaim (set-up)", true) || st == ECHOMQ_EMPTY) break;
    JobList l(raw);
    for (size_t i = 0; i < echomq_job_list_count(l.get()); ++i) {
      const echomq_job *j = echomq_job_list_at(l.get(), i);
      out.push_back({echomq_job_id(j), echomq_job_token(j)});
    }
  }
  return out;
}

Variant ack_variant(Context &ctx, int n, Pool &cl) {
  return {"ack", "ack", [&ctx, n, &cl](int) {
    const uint64_t share = ops_for(ctx, n) / n;
    const std::string &q = ctx.queue;
    ctx.fresh();
    load(cl[0]->get(), q, kLanes, share * n, kPayload);
    std::vector<Lease> leases = lease_all(ctx, cl[0]->get());
    if (leases.size() != share * n) {
      errors().add("ack set-up: leased " + std::to_string(leases.size()) + " jobs");
      return 0.0;
    }
    double secs = parallel(n, [&](int i) {
      for (uint64_t k = uint64_t(i) * share; k < uint64_t(i + 1) * share; ++k)
        if (!ok(echomq_ack(cl[i]->get(), q.c_str(), leases[k].id, leases[k].token), cl[i]->get(),
                "ack"))
          return;
    });
    expect(ctx, cl[0]->get(), "ack", 0, 0);
    return double(share * n) / secs;
  }};
}

/// The claim+ack cycle with two round trips per job.
Variant two_call_variant(Context &ctx, int n, Pool &cl) {
  return {"cycle", "claim then ack (2 round trips)", [&ctx, n, &cl](int) {
    const uint64_t share = ops_for(ctx, n) / n;
    const std::string &q = ctx.queue;
    ctx.fresh();
    load(cl[0]->get(), q, kLanes, share * n, kPayload);
    double secs = parallel(n, [&](int i) {
      echomq_client *c = cl[i]->get();
      for (uint64_t k = 0; k < share; ++k) {
        echomq_job *raw = nullptr;
        if (!ok(echomq_claim(c, q.c_str(), kLease, &raw), c, "claim")) return;
        Job j(raw);
        if (!ok(echomq_ack(c, q.c_str(), echomq_job_id(raw), echomq_job_token(raw)), c, "ack"))
          return;
      }
    });
    expect(ctx, cl[0]->get(), "cycle", 0, 0);
    return double(share * n) / secs;
  }};
}

/// The same cycle with the fused echomq_ack_claim: one round trip per job.
Variant fused_variant(Context &ctx, int n, Pool &cl) {
  return {"cycle", "echomq_ack_claim (1 round trip)", [&ctx, n, &cl](int) {
    const uint64_t share = ops_for(ctx, n) / n;
    const std::string &q = ctx.queue;
    ctx.fresh();
    load(cl[0]->get(), q, kLanes, share * n, kPayload);
    double secs = parallel(n, [&](int i) {
      echomq_client *c = cl[i]->get();
      echomq_job *raw = nullptr;
      if (!ok(echomq_claim(c, q.c_str(), kLease, &raw), c, "claim")) return;
      Job cur(raw);
      for (uint64_t k = 1; k < share; ++k) {
        raw = nullptr;
        if (!ok(echomq_ack_claim(c, q.c_str(), echomq_job_id(cur.get()),
                                 echomq_job_token(cur.get()), kLease, &raw),
                c, "ack_claim"))
          return;
        cur.reset(raw);
      }
      ok(echomq_ack(c, q.c_str(), echomq_job_id(cur.get()), echomq_job_token(cur.get())), c,
         "ack");
    });
    expect(ctx, cl[0]->get(), "fused cycle", 0, 0);
    return double(share * n) / secs;
  }};
}

void throughput_for(Context &ctx, int n, Pool &cl) {
  FloorProbe probe(ctx.url, n);
  const uint64_t ops = ops_for(ctx, n);
  std::vector<double> cpu;
  ShapeProbe shape(ctx.url, n);
  Variant shaped{"claim", "reference: claim-shaped Lua (hiredis)",
                 [&shape, ops](int) { return shape.sample(ops); }};
  auto claims = ctx.rounds(n, "jobs/s",
                           {floor_variant(probe, ops), shaped, claim_variant(ctx, n, cl, &cpu),
                            wclaim_variant(ctx, n, 1, cl), wclaim_variant(ctx, n, 4, cl),
                            wclaim_variant(ctx, n, 16, cl)},
                           0, "floor");
  ctx.checkpoint("claim");
  Figure vs_shape;
  vs_shape.section = "claim";
  vs_shape.name = "claim / claim-shaped reference";
  vs_shape.clients = n;
  vs_shape.value = paired_ratio(*claims[2], *claims[1]);
  vs_shape.unit = "x";
  ctx.out->add(vs_shape);
  Figure f;
  f.section = "client-cpu";
  f.name = "user CPU per 1M claims (getrusage)";
  f.clients = n;
  f.value = median(cpu);
  f.unit = "s";
  f.runs = cpu;
  ctx.out->add(f);

  ctx.rounds(n, "jobs/s", {floor_variant(probe, ops), enqueue_variant(ctx, n, cl),
                           bulk_variant(ctx, n, cl)},
             0, "floor");
  ctx.checkpoint("enqueue");
  ctx.rounds(n, "ops/s", {floor_variant(probe, ops), ack_variant(ctx, n, cl)}, 0, "floor");
  ctx.checkpoint("ack");
  auto cyc = ctx.rounds(n, "jobs/s", {floor_variant(probe, ops), two_call_variant(ctx, n, cl),
                                      fused_variant(ctx, n, cl)},
                        0, "floor");
  ctx.checkpoint("cycle");
  Figure gain;
  gain.section = "one-rtt";
  gain.name = "fused cycle / ack-then-claim";
  gain.clients = n;
  gain.value = paired_ratio(*cyc[2], *cyc[1]);
  gain.unit = "x";
  ctx.out->add(gain);

  Figure wk;
  wk.section = "wclaim";
  wk.name = "wclaim K=16 jobs/s / claim";
  wk.clients = n;
  const Figure *claim = ctx.out->find("claim", "claim", n);
  const Figure *k16 = ctx.out->find("wclaim", "wclaim K=16 (jobs/s)", n);
  wk.value = claim && k16 ? paired_ratio(*k16, *claim) : NAN;
  wk.unit = "x";
  ctx.out->add(wk);
}

}  // namespace

void run_throughput(Context &ctx) {
  Pool cl = clients(ctx.url, 8);
  for (auto &c : cl)
    if (!c->get()) return;
  for (int n : {1, 8}) throughput_for(ctx, n, cl);
}

}  // namespace bench
