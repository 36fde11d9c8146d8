/* The public header must stand on its own: this file includes nothing else
 * and is compiled (syntax only) as strict C99 and as C++11 by CTest. */
#include <echomq/echomq.h>

/* Use a few declarations so the compiler checks the types, not just the text. */
static const echomq_client_options emq_default_client_options = ECHOMQ_CLIENT_OPTIONS_INIT;
static const echomq_enqueue_options emq_default_enqueue_options = ECHOMQ_ENQUEUE_OPTIONS_INIT;

int emq_header_probe(void);
int emq_header_probe(void) {
  return (int)emq_default_client_options.version + (int)emq_default_enqueue_options.version +
         (ECHOMQ_VERSION_NUMBER > 0 ? ECHOMQ_OK : ECHOMQ_EINTERNAL);
}
