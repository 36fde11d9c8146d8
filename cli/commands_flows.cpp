// Flows: `flow show ID` (a job's parent, children and their states),
// `flow delete ID` (the unfinished flow, whole), and the flow lines of
// `job` (docs/cli.md, docs/operations.md "Flows").
#include <cstdint>
#include <memory>
#include <string>

#include "command.hpp"
#include "errors.hpp"
#include "format.hpp"

namespace emqcli {
namespace {

using FlowInfoPtr = std::unique_ptr<echomq_flow_info, void (*)(echomq_flow_info *)>;

const char *on_fail_word(int p) {
  switch (p) {
    case ECHOMQ_FLOW_IGNORE: return "ignore";
    case ECHOMQ_FLOW_CONTINUE: return "continue";
    default: return "fail";
  }
}

// The links of job id; a null pointer when it has none to show (gone, or
// the call failed: `job` shows the job without them).
FlowInfoPtr links(Context &ctx, uint64_t id) {
  echomq_flow_info *raw = nullptr;
  int rc = echomq_flow_info_get(ctx.session.client(), ctx.session.q(), id, &raw);
  FlowInfoPtr fi(rc == ECHOMQ_OK ? raw : nullptr, &echomq_flow_info_free);
  if (rc != ECHOMQ_OK) echomq_flow_info_free(raw);
  return fi;
}

std::string bytes_of(const char *p, size_t n) { return std::string(p, n); }

int cmd_flow(Context &ctx) {
  const std::string verb = ctx.args.positionals()[0];
  if (verb != "show" && verb != "delete") throw usage_error("flow: say `flow show ID` or `flow delete ID`");
  uint64_t id = parse_uint(ctx.args.positionals()[1], 1, ECHOMQ_ID_MAX, "ID");
  if (verb == "delete") {
    uint64_t n = 0;
    ctx.session.check(echomq_delete_flow(ctx.session.client(), ctx.session.q(), id, &n),
                      "delete the flow of job " + std::to_string(id));
    if (ctx.json) print("{\"id\":" + std::to_string(id) + ",\"deleted\":" + std::to_string(n) + "}\n");
    else print("deleted " + std::to_string(n) + " jobs of the flow of job " + std::to_string(id) + "\n");
    return kExitOk;
  }
  echomq_flow_info *raw = nullptr;
  int rc = echomq_flow_info_get(ctx.session.client(), ctx.session.q(), id, &raw);
  FlowInfoPtr fi(raw, &echomq_flow_info_free);
  if (rc == ECHOMQ_ENOTFOUND) {
    if (ctx.json) print("null\n");
    throw CliError(kExitNotFound, "flow: no job " + std::to_string(id) + " in queue '" + ctx.session.queue() + "'");
  }
  ctx.session.check(rc, "flow show " + std::to_string(id));
  const echomq_flow_info *f = fi.get();
  size_t n = echomq_flow_info_count(f);
  if (ctx.json) {
    Json j;
    j.begin_object().key("id").num(id).key("state").str(state_word(echomq_flow_info_state(f)));
    j.key("parent");
    if (echomq_flow_info_parent(f)) j.num(echomq_flow_info_parent(f)); else j.null();
    j.key("on_fail").str(on_fail_word(echomq_flow_info_on_fail(f)));
    j.key("waiting").num(static_cast<uint64_t>(echomq_flow_info_waiting(f))).key("children").begin_array();
    for (size_t i = 0; i < n; ++i) {
      size_t el = 0, rl = 0;
      const char *e = echomq_flow_info_child_error(f, i, &el);
      const char *r = echomq_flow_info_child_result(f, i, &rl);
      j.begin_object().key("id").num(echomq_flow_info_child(f, i));
      j.key("state").str(state_word(echomq_flow_info_child_state(f, i)));
      j.key("attempts").num(echomq_flow_info_child_attempts(f, i));
      j.key("finished_at_ms").num(echomq_flow_info_child_finished_at(f, i));
      j.key("error").str(bytes_of(e, el)).key("result").str(bytes_of(r, rl)).end_object();
    }
    j.end_array().end_object();
    print(j.text() + "\n");
    return kExitOk;
  }
  std::string out = "job       " + std::to_string(id) + " (" + state_word(echomq_flow_info_state(f)) + ")\n";
  if (echomq_flow_info_parent(f))
    out += "parent    " + std::to_string(echomq_flow_info_parent(f)) + " (if this job dies: " +
           on_fail_word(echomq_flow_info_on_fail(f)) + ")\n";
  if (n == 0) out += "children  none\n";
  else out += "children  " + std::to_string(n) + ", " + std::to_string(echomq_flow_info_waiting(f)) + " not finished\n";
  for (size_t i = 0; i < n; ++i) {
    size_t el = 0, rl = 0;
    const char *e = echomq_flow_info_child_error(f, i, &el);
    const char *r = echomq_flow_info_child_result(f, i, &rl);
    out += "  " + std::to_string(echomq_flow_info_child(f, i)) + "  " + state_word(echomq_flow_info_child_state(f, i)) +
           "  attempts " + std::to_string(echomq_flow_info_child_attempts(f, i));
    if (el) out += "  error " + display_bytes(std::string_view(e, el), 200);
    if (rl) out += "  result " + display_bytes(std::string_view(r, rl), 200);
    out += "\n";
  }
  print(out);
  return kExitOk;
}

}  // namespace

std::string flow_text(Context &ctx, uint64_t id) {
  FlowInfoPtr fi = links(ctx, id);
  if (!fi) return "";
  std::string out;
  if (echomq_flow_info_parent(fi.get()))
    out += "parent    " + std::to_string(echomq_flow_info_parent(fi.get())) + " waits for it\n";
  if (echomq_flow_info_count(fi.get()))
    out += "waits for " + std::to_string(echomq_flow_info_waiting(fi.get())) + " of its " +
           std::to_string(echomq_flow_info_count(fi.get())) + " children (`flow show " + std::to_string(id) + "`)\n";
  return out;
}

std::string flow_json_members(Context &ctx, uint64_t id) {
  FlowInfoPtr fi = links(ctx, id);
  if (!fi) return "";
  return ",\"parent\":" + (echomq_flow_info_parent(fi.get()) ? std::to_string(echomq_flow_info_parent(fi.get())) : "null") +
         ",\"children\":" + std::to_string(echomq_flow_info_count(fi.get())) +
         ",\"waiting_for\":" + std::to_string(echomq_flow_info_waiting(fi.get()));
}

void add_flow_commands(std::vector<Command> &out) {
  out.push_back({"flow", "show|delete ID", "a job's flow: its parent, children and their states; or delete it",
                 "`flow show ID` lists the job's parent (the job that waits for it, and what that\n"
                 "parent does if it dies), its children with their states, attempts, errors and\n"
                 "results (kept for it until it settles). `flow delete ID` deletes the unfinished\n"
                 "flow the job belongs to, whole (exits 10 when a job of it is leased now).",
                 {}, 2, 2, true, cmd_flow});
  out.back().exits = "4 no such job, 10 a job of the flow is leased";
}

}  // namespace emqcli
