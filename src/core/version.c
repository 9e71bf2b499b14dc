/* Version and build features. */
#include "internal.h"

const char *kr_version(void) { return KRAY_VERSION_STRING; }

const char *kr_build_features(void)
{
    return "openmp fftw"
#ifdef KRAY_HAVE_CUDA
           " cuda cufft"
#endif
#ifdef KRAY_HAVE_PNG
           " png"
#endif
#ifdef KRAY_HAVE_DCMTK
           " dcmtk"
#endif
#ifdef KRAY_HAVE_ISMRMRD
           " ismrmrd"
#endif
#ifdef KRAY_HAVE_ZLIB
           " zlib"
#endif
        ;
}
