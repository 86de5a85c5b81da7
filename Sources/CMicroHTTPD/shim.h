#pragma once
#include <stdarg.h>
#include <stdint.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

/* MHD_start_daemon is variadic, which Swift cannot call: this fixes the options we use. */
static inline struct MHD_Daemon *whereabouts_mhd_start(const struct sockaddr_in *address,
                                                       MHD_AccessHandlerCallback handler, void *context,
                                                       unsigned int connection_limit) {
    /* A thread per connection: an event stream's reader waits for events on its own thread. */
    return MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG,
                            ntohs(address->sin_port), NULL, NULL, handler, context,
                            MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)address,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)10,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_END);
}

/* MHD_get_daemon_info is variadic too: the port actually bound (for port 0). */
static inline uint16_t whereabouts_mhd_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}
