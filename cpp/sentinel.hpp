// A primary found through Sentinel.
//
//   valkey+sentinel://[user[:password]@]host1[:port1][,host2[:port2]...]/<primary>[/db]
//       [?sentinel_user=U&sentinel_password=P]
//
// (also redis+sentinel://, and valkeys+sentinel:// / rediss+sentinel://,
// which reach the Sentinels and the primary over TLS where the build has it.)
// The userinfo and the db are the primary's; the Sentinels get their own
// credentials from the query (none: no AUTH). A Sentinel's port defaults to
// 26379. Any other query parameter is the base scheme's (TLS settings).
//
// Discovery (Connection::openPrimary): the Sentinels are asked in the URL's
// order, the first that names the primary wins; the address it names must
// answer ROLE "master", else the Sentinels are asked again until the
// connect timeout. A connection found this way discovers again when it is
// lost, or when the server answers READONLY or UNBLOCKED (it was demoted).
#pragma once

#include <string>

#include "connection.hpp"
#include "url.hpp"

namespace echomq {

// "valkey+sentinel" and the like.
bool isSentinelScheme(const std::string& scheme);

// Parses what follows "<scheme>://" of a Sentinel URL. Throws EINVAL (a URL
// without a primary name, a bad Sentinel address, an unknown or broken
// query) with no I/O.
Endpoint parseSentinelUrl(const std::string& scheme, const std::string& rest);

// Asks ep's Sentinels, in order, for the address of ep's primary. Returns
// the endpoint to connect to (ep with that host and port, no Sentinels).
// Throws ECONN when no Sentinel answers or none knows the primary, with
// what each one said.
Endpoint askSentinels(const Endpoint& ep, const Timeouts& t);

}  // namespace echomq
