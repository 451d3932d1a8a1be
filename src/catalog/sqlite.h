// The SQLite backend of the catalog (catalog/sql.h): the embedded default,
// one file per catalog.
#pragma once

#include <sqlite3.h>

#include <string>

#include "catalog/sql.h"

namespace errdex::catalog {

// flags: SQLITE_OPEN_READONLY or SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE.
// Registers errdex_row_hash(...) and errdex_sum(x) (see RowHasher).
Result<Database> OpenSqlite(const std::string& path, int flags, BusyPolicy busy = {});

}  // namespace errdex::catalog
