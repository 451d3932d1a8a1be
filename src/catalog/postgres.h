// The PostgreSQL backend of the catalog (catalog/sql.h), over libpq: one
// catalog per database (or per schema, through the URL's search_path),
// shared by any number of readers and writers on any machine.
#pragma once

#include <string>
#include <string_view>

#include "catalog/sql.h"

namespace errdex::catalog {

// Connects to `url` (postgresql://[user[:password]@][host][:port]/dbname
// [?param=value...], libpq's URI form). kIo with libpq's reason, the
// password left out, when the server cannot be reached or refuses. A
// read-only connection refuses every write (default_transaction_read_only).
Result<Database> OpenPostgres(const std::string& url, bool read_only, BusyPolicy busy = {});

// The URL without its password, for messages.
std::string RedactUrl(std::string_view url);

}  // namespace errdex::catalog
