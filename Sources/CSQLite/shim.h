#ifndef MIRROR_CSQLITE_SHIM_H
#define MIRROR_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
