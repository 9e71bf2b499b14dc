/* kray: GPU-accelerated reconstruction and simulation of medical images. Umbrella header. */
#ifndef KRAY_KRAY_H
#define KRAY_KRAY_H

#include "kray/core.h"
#include "kray/ct.h"
#include "kray/dicom.h"
#include "kray/dist.h"
#include "kray/fbp.h"
#include "kray/fdk.h"
#include "kray/fft.h"
#include "kray/traj.h"
#include "kray/drft.h"
#include "kray/nufft.h"
#include "kray/lsq.h"
#include "kray/goertzel.h"
#include "kray/fve.h"
#include "kray/offres.h"
#include "kray/io.h"
#include "kray/linop.h"
#include "kray/metrics.h"
#include "kray/reg.h"
#include "kray/mrreg.h"
#include "kray/phantom.h"
#include "kray/cartesian.h"
#include "kray/noise.h"
#include "kray/ismrmrd.h"
#include "kray/sense.h"
#include "kray/cgsense.h"
#include "kray/coils.h"
#include "kray/sim.h"

#endif
