/* device_uuid.c - prints what cl_khr_device_uuid says of the CPU device
   (its device and driver UUIDs), or that the device does not have it, for
   check_device_uuid.sh to compare our driver with PoCL's own.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include "cltest.h"

#ifndef CL_DEVICE_UUID_KHR
#define CL_UUID_SIZE_KHR 16
#define CL_DEVICE_UUID_KHR 0x106A
#define CL_DRIVER_UUID_KHR 0x106B
#endif

static void
print_uuid (cl_device_id dev, cl_device_info what, const char *name)
{
  unsigned char uuid[CL_UUID_SIZE_KHR];
  CL_OK (clGetDeviceInfo (dev, what, sizeof (uuid), uuid, NULL));
  printf ("%s ", name);
  for (int i = 0; i < CL_UUID_SIZE_KHR; ++i)
    printf ("%02x", uuid[i]);
  printf ("\n");
}

int
main (void)
{
  cl_platform_id platform;
  cl_device_id dev = cltest_cpu_device (&platform);
  size_t size = 0;
  CL_OK (clGetDeviceInfo (dev, CL_DEVICE_EXTENSIONS, 0, NULL, &size));
  char *ext = malloc (size + 1);
  CL_OK (clGetDeviceInfo (dev, CL_DEVICE_EXTENSIONS, size, ext, NULL));
  ext[size] = '\0';
  if (strstr (ext, "cl_khr_device_uuid") == NULL)
    printf ("no cl_khr_device_uuid\n");
  else
    {
      print_uuid (dev, CL_DEVICE_UUID_KHR, "device-uuid");
      print_uuid (dev, CL_DRIVER_UUID_KHR, "driver-uuid");
    }
  free (ext);
  return 0;
}
