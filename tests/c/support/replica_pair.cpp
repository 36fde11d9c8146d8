#include "replica_pair.hpp"

namespace emqtest {

ReplicaPair::ReplicaPair(const std::string &primary_extra)
    : primary(free_port(), primary_extra), replica(free_port()), link(primary.port()) {
  primary.start();
  replica.start();
  praw_ = std::make_unique<RawValkey>("127.0.0.1", primary.port());
  rraw_ = std::make_unique<RawValkey>("127.0.0.1", replica.port());
  rraw_->must({"REPLICAOF", "127.0.0.1", std::to_string(link.port())});
  // WAIT counts the replicas that have this connection's last write.
  praw_->must({"SET", "replica-pair-mark", "0"});
  REQUIRE(praw_->integer({"WAIT", "1", "20000"}) == 1);
}

}  // namespace emqtest
