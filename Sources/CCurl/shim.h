#ifndef PUSHLEDGER_CCURL_SHIM_H
#define PUSHLEDGER_CCURL_SHIM_H
// curl_easy_setopt/getinfo are variadic, which Swift cannot call: one typed wrapper per argument kind.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <stddef.h>

typedef size_t (*pl_write_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode pl_setopt_long(CURL *c, CURLoption o, long v) { return curl_easy_setopt(c, o, v); }
static inline CURLcode pl_setopt_string(CURL *c, CURLoption o, const char *v) { return curl_easy_setopt(c, o, v); }
static inline CURLcode pl_setopt_pointer(CURL *c, CURLoption o, void *v) { return curl_easy_setopt(c, o, v); }
static inline CURLcode pl_setopt_slist(CURL *c, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(c, o, v); }
static inline CURLcode pl_setopt_write(CURL *c, pl_write_callback f) { return curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, f); }
static inline CURLcode pl_setopt_header(CURL *c, pl_write_callback f) { return curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, f); }
/// A blob curl copies (CURL_BLOB_COPY), so the caller's buffer may go away after the call.
static inline CURLcode pl_setopt_blob(CURL *c, CURLoption o, void *data, size_t len) {
    struct curl_blob blob = { data, len, CURL_BLOB_COPY };
    return curl_easy_setopt(c, o, &blob);
}
static inline CURLcode pl_getinfo_long(CURL *c, CURLINFO i, long *v) { return curl_easy_getinfo(c, i, v); }
static inline CURLcode pl_getinfo_string(CURL *c, CURLINFO i, char **v) { return curl_easy_getinfo(c, i, v); }

#endif
