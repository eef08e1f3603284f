#ifndef MIRROR_CZLIB_SHIM_H
#define MIRROR_CZLIB_SHIM_H
#include <zlib.h>
#endif
