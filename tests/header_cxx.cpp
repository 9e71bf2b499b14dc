// Public headers compile as C++.
#include "kray/kray.h"
int kray_header_cxx_check() { return KR_OK; }
