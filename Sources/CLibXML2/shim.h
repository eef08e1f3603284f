#ifndef MIRROR_CLIBXML2_SHIM_H
#define MIRROR_CLIBXML2_SHIM_H
// Debian's libxml2 is built with ICU; its headers then pull in ICU types that clash
// with Foundation's copy ('UErrorCode' has different definitions). We never use
// libxml2's ICU entry points, so hide them before the parser headers are read.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/HTMLparser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>
#endif
