// client.cpp: the Client class and its connection (capi/include/echomq/client.h).
#include "bind.hpp"

namespace emqpy {

py::class_<Client> bind_client(py::module_ &m) {
  py::class_<Client> c(m, "Client", "One connection to one Valkey server (an echomq_client handle).");
  // Creating the handle does no I/O, so the factory keeps the GIL.
  c.def(py::init<int, int, size_t, int, int, int>(), py::arg("connect_timeout_ms"), py::arg("command_timeout_ms"),
        py::arg("max_payload_bytes"), py::arg("wait_replicas") = 0, py::arg("wait_aof") = 0,
        py::arg("wait_timeout_ms") = 1000);
  c.def_static("take_unconfirmed", &take_unconfirmed,
               "Why the last call of this thread wrote but was not confirmed durable in time "
               "('' if it was, or did not wait); clears it. No I/O.");
  def<&echomq_client_connect>(c, "connect", py::arg("url"), "Connect (or reconnect) to a server URL.");
  def<&echomq_client_ping>(c, "ping", "Send PING.");
  c.def("cancel", &Client::cancel, "Interrupt a call in progress on this client from another thread.");
  c.def(
      "close",
      [](Client &self) {
        py::gil_scoped_release nogil;
        self.close();
      },
      "Close the connection and free the handle.");
  c.def_property_readonly("closed", &Client::closed, "True once close() has run.");
  c.def_property_readonly(
      "connected",
      [](Client &self) {
        py::gil_scoped_release nogil;
        return self.connected();
      },
      "True if the handle holds a live connection (no I/O).");
  return c;
}

}  // namespace emqpy
