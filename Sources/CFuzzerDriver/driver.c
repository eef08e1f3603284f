// The declaration in include/CFuzzerDriver.h is this target's whole content; SwiftPM builds a C
// target from at least one source file.
#include "CFuzzerDriver.h"
