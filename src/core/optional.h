/* Optional parts, loaded when a call first needs them (docs/design.md, "Optional parts").
 *
 * kray links at start-up only what every call may use (libc, libm, OpenMP, FFTW, libpng, zlib;
 * the CUDA runtime is static). The large optional libraries are opened with dlopen by the first
 * call that needs them, and their functions reached through the symbol tables below:
 *   cufft    the CUDA toolkit's cuFFT (CUDA builds): plans and transforms on the device;
 *   ismrmrd  Debian's libismrmrd (and through it HDF5): ISMRMRD raw data files;
 *   dcmtk    kray's own plug-in libkray_dcmtk.so (src/io/dicom_dcmtk.cpp, linked to DCMTK),
 *            looked for beside libkray or the program: DICOM files;
 *   mpi      kray's own plug-in libkray_mpi.so (src/plugins/mpi.c, linked to MPI), loaded with
 *            its symbols global (MPI's own components resolve against them) by a process that
 *            an MPI launcher started among several (core/dist.c, kray/dist.h).
 * The users keep calling the libraries' own names: cufft_load.h and ismrmrd_load.h map them to
 * typed wrappers over these tables. */
#ifndef KRAY_OPTIONAL_H
#define KRAY_OPTIONAL_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kri_part {
    KRI_PART_CUFFT = 0,
    KRI_PART_ISMRMRD,
    KRI_PART_DCMTK,
    KRI_PART_MPI,
    KRI_PART_COUNT
} kri_part;

/* A symbol as dlsym found it, to be cast to its function type by the typed wrappers. */
typedef void (*kri_fn)(void);

/* The symbols of each part, in table order. */
#define KRI_CUFFT_SYMS(X)                                                                          \
    X(cufftCreate) X(cufftDestroy) X(cufftExecC2C) X(cufftExecZ2Z) X(cufftMakePlanMany64)          \
    X(cufftSetAutoAllocation) X(cufftSetStream) X(cufftSetWorkArea) X(cufftXtSetJITCallback)
#define KRI_ISMRMRD_SYMS(X)                                                                        \
    X(ismrmrd_append_acquisition) X(ismrmrd_cleanup_acquisition) X(ismrmrd_cleanup_image)         \
    X(ismrmrd_cleanup_ndarray) X(ismrmrd_close_dataset) X(ismrmrd_get_number_of_acquisitions)     \
    X(ismrmrd_get_number_of_arrays) X(ismrmrd_get_number_of_images)                               \
    X(ismrmrd_init_acquisition) X(ismrmrd_init_dataset) X(ismrmrd_init_image)                     \
    X(ismrmrd_init_ndarray) X(ismrmrd_make_consistent_acquisition) X(ismrmrd_open_dataset)        \
    X(ismrmrd_read_acquisition) X(ismrmrd_read_array) X(ismrmrd_read_header)                      \
    X(ismrmrd_read_image) X(ismrmrd_set_channel_on) X(ismrmrd_set_error_handler)                  \
    X(ismrmrd_set_flag) X(ismrmrd_write_header) X(H5Eset_auto2)
#define KRI_DCMTK_SYMS(X)                                                                          \
    X(kri_dcmtk_abi) X(kri_dcmtk_uid) X(kri_dcmtk_write_slice) X(kri_dcmtk_read)
/* the plug-in's one symbol is its table (a kri_dist_ops, dist_plugin.h): kri_part_data */
#define KRI_MPI_SYMS(X) X(kri_dist_plugin)

#define KRI_SYM_ENUM(name) KRI_SYM_##name,
enum { KRI_CUFFT_SYMS(KRI_SYM_ENUM) KRI_CUFFT_NSYM };
enum { KRI_ISMRMRD_SYMS(KRI_SYM_ENUM) KRI_ISMRMRD_NSYM };
enum { KRI_DCMTK_SYMS(KRI_SYM_ENUM) KRI_DCMTK_NSYM };
enum { KRI_MPI_SYMS(KRI_SYM_ENUM) KRI_MPI_NSYM };

/* Load part p once (thread-safe; later calls return at once) and set *fns to its symbols in
 * the order of its list. Failure is KR_ERR_NOT_SUPPORTED with one sentence naming the part,
 * the file and the loader's reason (and the same sentence on every later call). */
kr_status kri_part_load(kri_part p, const kri_fn **fns);
/* A data symbol of a loaded part (symbol i of its list) as the object address dlsym gave. */
const void *kri_part_data(const kri_fn *fns, int i);

#ifdef __cplusplus
}
#endif
#endif
