// A fake libcuda for CPU-only tests of the driver bindings.
//
// It implements the entry points the package binds with host memory and a
// thread-local "current context", and runs two "kernels" on the CPU. Struct
// layouts are declared independently of the Go code, so the C compiler checks
// what the Go side lays out by hand. Build with -DNO_EX to omit
// cuLaunchKernelEx and cuOccupancyMaxActiveClusters (an old driver).
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef uint64_t CUdeviceptr;
typedef void *CUcontext, *CUmodule, *CUfunction, *CUstream, *CUevent;

typedef struct {
    unsigned id;
    char pad[4];
    union {
        char pad[64];
        struct { unsigned x, y, z; } clusterDim;
        unsigned policy;
        void *align;
    } value;
} CUlaunchAttribute;

typedef struct {
    unsigned gridDimX, gridDimY, gridDimZ;
    unsigned blockDimX, blockDimY, blockDimZ;
    unsigned sharedMemBytes;
    CUstream hStream;
    CUlaunchAttribute *attrs;
    unsigned numAttrs;
} CUlaunchConfig;

_Static_assert(sizeof(CUlaunchAttribute) == 72, "CUlaunchAttribute size");
_Static_assert(offsetof(CUlaunchAttribute, value) == 8, "CUlaunchAttribute.value offset");
_Static_assert(sizeof(CUlaunchConfig) == 56, "CUlaunchConfig size");
_Static_assert(offsetof(CUlaunchConfig, hStream) == 32, "hStream offset");
_Static_assert(offsetof(CUlaunchConfig, attrs) == 40, "attrs offset");
_Static_assert(offsetof(CUlaunchConfig, numAttrs) == 48, "numAttrs offset");

static __thread CUcontext current;
static char primary[2];
static int last_attr = -1, last_value = -1;

#define NEED_CTX do { if (!current) return 201; } while (0)

CUresult cuGetErrorName(CUresult e, const char **s) {
    switch (e) {
    case 1: *s = "CUDA_ERROR_INVALID_VALUE"; return 0;
    case 2: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return 0;
    case 101: *s = "CUDA_ERROR_INVALID_DEVICE"; return 0;
    case 201: *s = "CUDA_ERROR_INVALID_CONTEXT"; return 0;
    case 400: *s = "CUDA_ERROR_INVALID_HANDLE"; return 0;
    case 500: *s = "CUDA_ERROR_NOT_FOUND"; return 0;
    }
    *s = NULL;
    return 1;
}

CUresult cuGetErrorString(CUresult e, const char **s) {
    switch (e) {
    case 1: *s = "invalid argument"; return 0;
    case 2: *s = "out of memory"; return 0;
    case 101: *s = "invalid device ordinal"; return 0;
    case 201: *s = "invalid device context"; return 0;
    case 400: *s = "invalid resource handle"; return 0;
    case 500: *s = "named symbol not found"; return 0;
    }
    *s = NULL;
    return 1;
}

CUresult cuInit(unsigned flags) { return flags == 0 ? 0 : 1; }
CUresult cuDriverGetVersion(int *v) { *v = 12080; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 2; return 0; }
CUresult cuDeviceGet(CUdevice *d, int ord) {
    if (ord < 0 || ord >= 2) return 101;
    *d = ord;
    return 0;
}
CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
    snprintf(name, (size_t)len, "Fake GPU %d", d);
    return 0;
}
CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d) {
    switch (attr) {
    case 10: *v = 32; return 0;         // warp size
    case 75: *v = 9; return 0;          // CC major
    case 76: *v = 0; return 0;          // CC minor
    case 16: *v = 132 + d; return 0;    // SMs
    case 36: return 1;                  // memory clock: "no longer reported"
    case 120: *v = 1; return 0;         // cluster launch
    }
    *v = attr * 1000 + d;
    return 0;
}
CUresult cuDeviceTotalMem_v2(size_t *b, CUdevice d) { *b = ((size_t)80 << 30) + (size_t)d; return 0; }
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) { *c = &primary[d]; return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { (void)d; return 0; }
CUresult cuCtxSetCurrent(CUcontext c) { current = c; return 0; }
CUresult cuCtxGetCurrent(CUcontext *c) { *c = current; return 0; }
CUresult cuCtxSynchronize(void) { NEED_CTX; return 0; }

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
    NEED_CTX;
    if (n > ((size_t)1 << 40)) return 2;
    void *m = malloc(n ? n : 1);
    if (!m) return 2;
    *p = (CUdeviceptr)(uintptr_t)m;
    return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p) { NEED_CTX; free((void *)(uintptr_t)p); return 0; }
CUresult cuMemGetInfo_v2(size_t *f, size_t *t) { NEED_CTX; *f = (size_t)1 << 30; *t = (size_t)3 << 30; return 0; }
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) { NEED_CTX; memcpy((void *)(uintptr_t)d, s, n); return 0; }
CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) { NEED_CTX; memcpy(d, (void *)(uintptr_t)s, n); return 0; }
CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n) { NEED_CTX; memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n); return 0; }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, CUstream st) { (void)st; return cuMemcpyHtoD_v2(d, s, n); }
CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, CUstream st) { (void)st; return cuMemcpyDtoH_v2(d, s, n); }
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) { (void)st; return cuMemcpyDtoD_v2(d, s, n); }
CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) { NEED_CTX; memset((void *)(uintptr_t)d, v, n); return 0; }
CUresult cuMemsetD32_v2(CUdeviceptr d, unsigned v, size_t n) {
    NEED_CTX;
    uint32_t *p = (uint32_t *)(uintptr_t)d;
    for (size_t i = 0; i < n; i++) p[i] = v;
    return 0;
}
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) { (void)s; return cuMemsetD8_v2(d, v, n); }
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned v, size_t n, CUstream s) { (void)s; return cuMemsetD32_v2(d, v, n); }
CUresult cuPointerGetAttribute(void *data, int attr, CUdeviceptr p) {
    NEED_CTX;
    if (!p) return 1;
    switch (attr) {
    case 2: *(unsigned *)data = 2; return 0;                           // device memory
    case 9: *(int *)data = current == &primary[1] ? 1 : 0; return 0;   // ordinal
    }
    return 1;
}

CUresult cuModuleLoadData(CUmodule *m, const void *image) {
    NEED_CTX;
    if (strncmp((const char *)image, "FAKEMOD", 7) != 0) return 200;
    *m = strdup((const char *)image);
    return 0;
}
CUresult cuModuleUnload(CUmodule m) { NEED_CTX; free(m); return 0; }
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
    NEED_CTX;
    (void)m;
    if (strcmp(name, "axpb") == 0) { *f = (CUfunction)1; return 0; }
    if (strcmp(name, "echo") == 0) { *f = (CUfunction)3; return 0; }
    return 500;
}
CUresult cuFuncGetAttribute(int *v, int attr, CUfunction f) { *v = attr + 100 * (int)(intptr_t)f; return 0; }
CUresult cuFuncSetAttribute(CUfunction f, int attr, int value) {
    if (!f) return 400;
    last_attr = attr;
    last_value = value;
    return 0;
}
void fake_last_func_attr(int *attr, int *value) { *attr = last_attr; *value = last_value; }

static CUresult run(intptr_t f, const unsigned g[3], const unsigned b[3], unsigned smem, CUstream s,
                    const unsigned cl[3], unsigned nattrs, unsigned policy, void **params) {
    NEED_CTX;
    if (!params) return 1;
    switch (f) {
    case 1: {  // axpb(const float* x, float* y, float a, float b, int n)
        float *x = (float *)(uintptr_t) * (CUdeviceptr *)params[0];
        float *y = (float *)(uintptr_t) * (CUdeviceptr *)params[1];
        float a = *(float *)params[2], bb = *(float *)params[3];
        int n = *(int *)params[4];
        if ((long long)g[0] * b[0] < n) return 1;
        for (int i = 0; i < n; i++) y[i] = a * x[i] + bb;
        return 0;
    }
    case 3: {  // echo(unsigned* out): report the launch configuration
        uint32_t *out = (uint32_t *)(uintptr_t) * (CUdeviceptr *)params[0];
        out[0] = g[0]; out[1] = g[1]; out[2] = g[2];
        out[3] = b[0]; out[4] = b[1]; out[5] = b[2];
        out[6] = smem;
        out[7] = (uint32_t)(uintptr_t)s;
        out[8] = cl[0]; out[9] = cl[1]; out[10] = cl[2];
        out[11] = nattrs;
        out[12] = policy;
        return 0;
    }
    }
    return 400;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned smem, CUstream s, void **params, void **extra) {
    if (extra) return 1;
    unsigned g[3] = {gx, gy, gz}, b[3] = {bx, by, bz}, cl[3] = {0, 0, 0};
    return run((intptr_t)f, g, b, smem, s, cl, 0, 0, params);
}

#ifndef NO_EX
CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **params, void **extra) {
    if (extra || !c) return 1;
    unsigned g[3] = {c->gridDimX, c->gridDimY, c->gridDimZ};
    unsigned b[3] = {c->blockDimX, c->blockDimY, c->blockDimZ};
    unsigned cl[3] = {0, 0, 0}, policy = 0;
    for (unsigned i = 0; i < c->numAttrs; i++) {
        const CUlaunchAttribute *a = &c->attrs[i];
        if (a->id == 4) {
            cl[0] = a->value.clusterDim.x; cl[1] = a->value.clusterDim.y; cl[2] = a->value.clusterDim.z;
            if (!cl[0] || !cl[1] || !cl[2] || g[0] % cl[0] || g[1] % cl[1] || g[2] % cl[2]) return 912;
        } else if (a->id == 5) {
            policy = a->value.policy;
        } else {
            return 1;
        }
    }
    return run((intptr_t)f, g, b, c->sharedMemBytes, c->hStream, cl, c->numAttrs, policy, params);
}

CUresult cuOccupancyMaxActiveClusters(int *n, CUfunction f, const CUlaunchConfig *c) {
    (void)f;
    if (c->numAttrs < 1 || c->attrs[0].id != 4) return 1;
    *n = (int)(c->attrs[0].value.clusterDim.x * 100 + c->gridDimX);
    return 0;
}
#endif

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, CUfunction f, int blockSize, size_t smem) {
    (void)f;
    *n = blockSize * 10 + (int)smem;
    return 0;
}

CUresult cuStreamCreate(CUstream *s, unsigned flags) {
    NEED_CTX;
    unsigned *p = malloc(sizeof *p);
    *p = flags;
    *s = p;
    return 0;
}
CUresult cuStreamDestroy_v2(CUstream s) { NEED_CTX; free(s); return 0; }
CUresult cuStreamSynchronize(CUstream s) { (void)s; NEED_CTX; return 0; }

typedef struct { unsigned flags; double ms; int recorded; } fake_event;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
CUresult cuEventCreate(CUevent *e, unsigned flags) {
    NEED_CTX;
    fake_event *ev = calloc(1, sizeof *ev);
    ev->flags = flags;
    *e = ev;
    return 0;
}
CUresult cuEventRecord(CUevent e, CUstream s) {
    (void)s;
    NEED_CTX;
    fake_event *ev = e;
    ev->ms = now_ms();
    ev->recorded = 1;
    return 0;
}
CUresult cuEventSynchronize(CUevent e) { (void)e; NEED_CTX; return 0; }
CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
    fake_event *a = start, *b = end;
    if ((a->flags | b->flags) & 2) return 400;
    if (!a->recorded || !b->recorded) return 400;
    *ms = (float)(b->ms - a->ms);
    return 0;
}
CUresult cuEventDestroy_v2(CUevent e) { NEED_CTX; free(e); return 0; }
