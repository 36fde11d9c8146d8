/* Flows (echomq/flows.h), as far as the Go package uses them; %include-d
 * at the end of echomq.i (the same rules: declared here, compiled against
 * the real header). */

%rename(Flow) echomq_flow;
%rename(FlowInfo) echomq_flow_info;
%nodefaultctor;
%nodefaultdtor;
struct echomq_flow {};
struct echomq_flow_info {};
%clearnodefaultctor;
%clearnodefaultdtor;
typedef struct echomq_flow echomq_flow;
typedef struct echomq_flow_info echomq_flow_info;

%constant int ECHOMQ_EDEPENDS = ECHOMQ_EDEPENDS;
%constant int ECHOMQ_FLOW_MAX = ECHOMQ_FLOW_MAX;
%constant int ECHOMQ_JOB_WAITING = ECHOMQ_JOB_WAITING;

echomq_flow *echomq_flow_create(void);
void echomq_flow_free(echomq_flow *f);
int echomq_flow_add(echomq_flow *f, const char *name, const char *parent, int on_fail, const char *queue,
                    const char *group, const char *payload, size_t payload_len);
size_t echomq_flow_count(const echomq_flow *f);
uint64_t echomq_flow_id(const echomq_flow *f, size_t i);
int echomq_enqueue_flow(echomq_client *c, const char *queue, echomq_flow *f, uint32_t max_attempts);
int echomq_delete_flow(echomq_client *c, const char *queue, uint64_t id, uint64_t *OUT_U64);

void echomq_flow_info_free(echomq_flow_info *fi);
int echomq_flow_info_state(const echomq_flow_info *fi);
uint64_t echomq_flow_info_parent(const echomq_flow_info *fi);
int echomq_flow_info_on_fail(const echomq_flow_info *fi);
size_t echomq_flow_info_waiting(const echomq_flow_info *fi);
size_t echomq_flow_info_count(const echomq_flow_info *fi);
uint64_t echomq_flow_info_child(const echomq_flow_info *fi, size_t i);
int echomq_flow_info_child_state(const echomq_flow_info *fi, size_t i);
uint64_t echomq_flow_info_child_attempts(const echomq_flow_info *fi, size_t i);
int64_t echomq_flow_info_child_finished_at(const echomq_flow_info *fi, size_t i);

%inline %{
/* echomq_flow_info_get, the handle by its address (0 on failure). */
int emqgo_flow_info(echomq_client *c, const char *queue, uint64_t id, uint64_t *OUT_HANDLE) {
  echomq_flow_info *fi = NULL;
  int rc = echomq_flow_info_get(c, queue, id, &fi);
  *OUT_HANDLE = (uint64_t)(uintptr_t)fi;
  return rc;
}
/* Child i's error (what 0) or result (what 1): its length, and when buf
 * holds cap >= that many bytes, copied into it. */
size_t emqgo_flow_child_bytes(const echomq_flow_info *fi, size_t i, int what, char *buf, size_t cap) {
  size_t n = 0;
  const char *p = what ? echomq_flow_info_child_result(fi, i, &n) : echomq_flow_info_child_error(fi, i, &n);
  if (buf && cap >= n && n > 0) memcpy(buf, p, n);
  return n;
}
%}
