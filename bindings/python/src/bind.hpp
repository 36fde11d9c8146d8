// bind.hpp: what the topic files of the compiled module share — the
// conversions between C and Python values, and the one shape of a client
// method (`method<F>`), written once for every call of the C API that has it.
//
// The module is split like the C API (capi/include/echomq/*.h): one file per
// topic defines that topic's methods (client.cpp, queue.cpp, lanes.cpp,
// outcomes.cpp, inspect.cpp, ops.cpp, worker.cpp, schedules.cpp), constants.cpp the numbers,
// module.cpp ties them together. Nothing here touches a Python object
// without the GIL.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "handle.hpp"

namespace emqpy {

namespace py = pybind11;

// ---- Conversions (convert.cpp) ----------------------------------------------

// Text from the library is UTF-8; a fail reason may have been cut inside a
// character, so it is decoded leniently rather than failing on the way out.
py::str text(const char *s);

// A view of a bytes object's buffer. The caller keeps the object alive, and
// bytes are immutable, so the view stays valid while the GIL is released.
struct Bytes {
  const char *data;
  size_t size;
};
Bytes bytes_view(const py::handle &b, const char *what);

// A job as a tuple of the fields named by job_field_names(), in that order:
// the one list of a job's fields (echomq.job reads its names from
// _echomq.JOB_FIELDS), with times in seconds (None for "none") and the state
// as its name.
py::tuple job_tuple(const echomq_job *j);
py::tuple job_field_names();
// Each job state's number to its name (_echomq.JOB_STATES): the one table.
py::dict job_state_names();
py::list job_list(const echomq_job_list *l);

// The lines of a report (NULL: none).
py::list report_lines(const echomq_report *r);

py::dict lane_dict(const echomq_lane_info &li);
py::dict stats_dict(const echomq_queue_stats &s);

// ---- Outputs of a C call ----------------------------------------------------
// Out<T> holds what a call writes through its last parameter (T *) and turns
// it into a Python value; a handle it owns is freed on every path.

template <class T, class = void>
struct Out {  // numbers
  T v{};
  T *ptr() { return &v; }
  py::object value() { return py::int_(v); }
};

template <class H>
struct OwnedOut {  // a handle the call hands over
  H *raw = nullptr;
  H **ptr() { return &raw; }
  echomq::Owned<H> take() { return echomq::Owned<H>(std::exchange(raw, nullptr)); }
  ~OwnedOut() { echomq::Free()(raw); }
};

template <>
struct Out<echomq_job *> : OwnedOut<echomq_job> {
  py::object value() {
    auto j = take();
    return j ? py::object(job_tuple(j.get())) : py::object(py::none());
  }
};
template <>
struct Out<echomq_job_list *> : OwnedOut<echomq_job_list> {
  py::object value() { return job_list(take().get()); }
};
template <>
struct Out<echomq_report *> : OwnedOut<echomq_report> {
  py::object value() { return report_lines(take().get()); }
};
// A page of lanes: (list of dicts, next cursor or None).
template <>
struct Out<echomq_lane_list *> : OwnedOut<echomq_lane_list> {
  py::object value();
};
// A versioned struct, zeroed, its version set.
template <class S>
S versioned(unsigned int version) {
  S s{};
  s.version = version;
  return s;
}

template <>
struct Out<echomq_queue_stats> {
  echomq_queue_stats v = versioned<echomq_queue_stats>(ECHOMQ_QUEUE_STATS_VERSION);
  echomq_queue_stats *ptr() { return &v; }
  py::object value() { return stats_dict(v); }
};
template <>
struct Out<echomq_lane_info> {
  echomq_lane_info v = versioned<echomq_lane_info>(ECHOMQ_LANE_INFO_VERSION);
  echomq_lane_info *ptr() { return &v; }
  py::object value() { return lane_dict(v); }
};

// ---- Inputs of a C call -----------------------------------------------------
// In<T>::type is what the method takes from Python for a C parameter of type
// T; In<T>::c gives the C value (with the GIL held: nothing is read later).

template <class T>
struct In {
  using type = T;
  static T c(const T &v) { return v; }
};
template <>
struct In<const char *> {  // names, keys, cursors, reasons: str or bytes
  using type = std::string;
  static const char *c(const std::string &s) { return cstr(s, "a string argument"); }
};
template <>
struct In<Bytes> {  // payloads, results, progress (the C calls' pointer + length)
  using type = py::bytes;
  static Bytes c(const py::bytes &b) { return bytes_view(b, "a bytes argument"); }
};

// ---- The one shape of a client method ---------------------------------------
// method<F> is Client's method for the C call
//     int F(echomq_client *, In..., [Out *])
// It takes the inputs from Python, copies them out, releases the GIL, runs F
// under the client's lock (Client::call raises for a failed status), and
// returns the value of the last parameter when it is an output (a non-const
// pointer), else None. Calls of another shape get a small adapter of that
// shape (a plain function) or are written out in their topic file.

template <class F>
struct Params;
template <class... P>
struct Params<int (*)(echomq_client *, P...)> {
  using type = std::tuple<P...>;
};

template <class Tuple, class = void>
struct LastIsOut : std::false_type {};
template <class... P>
struct LastIsOut<std::tuple<P...>, std::enable_if_t<(sizeof...(P) > 0)>> {
  using Last = std::tuple_element_t<sizeof...(P) - 1, std::tuple<P...>>;
  static constexpr bool value = std::is_pointer_v<Last> && !std::is_const_v<std::remove_pointer_t<Last>>;
};

template <auto F, class P, class I>
struct Method;
template <auto F, class... P, size_t... I>
struct Method<F, std::tuple<P...>, std::index_sequence<I...>> {
  using Ps = std::tuple<P...>;
  template <size_t K>
  using Param = std::tuple_element_t<K, Ps>;

  static py::object run(Client &self, typename In<Param<I>>::type... a) {
    auto args = std::make_tuple(In<Param<I>>::c(a)...);
    if constexpr (sizeof...(I) < sizeof...(P)) {  // the last parameter is an output
      Out<std::remove_pointer_t<Param<sizeof...(P) - 1>>> out;
      {
        py::gil_scoped_release nogil;
        self.call([&](echomq_client *c) { return F(c, std::get<I>(args)..., out.ptr()); });
      }
      return out.value();
    } else {
      {
        py::gil_scoped_release nogil;
        self.call([&](echomq_client *c) { return F(c, std::get<I>(args)...); });
      }
      return py::none();
    }
  }
};

template <auto F>
using MethodOf = Method<F, typename Params<decltype(F)>::type,
                        std::make_index_sequence<std::tuple_size_v<typename Params<decltype(F)>::type> -
                                                 (LastIsOut<typename Params<decltype(F)>::type>::value ? 1 : 0)>>;

// Defines Client method `name` as method<F>, with its argument names and doc.
template <auto F, class... Extra>
void def(py::class_<Client> &cls, const char *name, const Extra &...extra) {
  cls.def(name, &MethodOf<F>::run, extra...);
}

// ---- The topics ---------------------------------------------------------------

void bind_constants(py::module_ &m);
py::class_<Client> bind_client(py::module_ &m);
void bind_queue(py::class_<Client> &c);
void bind_lanes(py::class_<Client> &c);
void bind_outcomes(py::class_<Client> &c);
void bind_inspect(py::class_<Client> &c);
void bind_ops(py::class_<Client> &c);
void bind_worker(py::module_ &m);
void bind_lifecycle(py::class_<Client> &c);

}  // namespace emqpy
