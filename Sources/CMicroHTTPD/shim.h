#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include <netinet/in.h>

/// The peer's IPv4 address in network byte order, or 0 when it is not IPv4.
/// (`MHD_get_connection_info` is variadic, which Swift cannot call.)
static inline uint32_t pushledger_client_ipv4(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || info->client_addr->sa_family != AF_INET) return 0;
    return ((const struct sockaddr_in *)info->client_addr)->sin_addr.s_addr;
}

/* MHD_get_connection_info is variadic, which Swift cannot call: the socket of a connection. */
static inline int pushledger_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/* MHD_LogCallback takes a va_list, which Swift cannot take: this one formats each message and
   hands the line to `sink->line`. Pass `pushledger_log_formatter()` with MHD_OPTION_EXTERNAL_LOGGER
   and a `struct pushledger_log_sink *` as its closure. */
struct pushledger_log_sink {
    void (*line)(void *context, const char *text);
    void *context;
};

static inline void pushledger_format_log(void *cls, const char *format, va_list arguments) {
    char text[512];
    vsnprintf(text, sizeof text, format, arguments);
    struct pushledger_log_sink *sink = (struct pushledger_log_sink *)cls;
    sink->line(sink->context, text);
}

static inline intptr_t pushledger_log_formatter(void) { return (intptr_t)pushledger_format_log; }
