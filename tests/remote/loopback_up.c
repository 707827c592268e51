/* loopback_up.c - brings up the loopback interface of the network
   namespace it runs in (a new one has it down), for check_remote.sh,
   which runs its servers in a namespace of their own.  The build root has
   no `ip`.

   Copyright (c) 2026 pocl-steal developers.  MIT licence, as PoCL.  */

#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

int
main (void)
{
  struct ifreq ifr;
  int s = socket (AF_INET, SOCK_DGRAM, 0);
  if (s < 0)
    {
      perror ("loopback_up: socket");
      return 1;
    }
  memset (&ifr, 0, sizeof ifr);
  strncpy (ifr.ifr_name, "lo", IFNAMSIZ - 1);
  if (ioctl (s, SIOCGIFFLAGS, &ifr) < 0)
    {
      perror ("loopback_up: SIOCGIFFLAGS lo");
      return 1;
    }
  ifr.ifr_flags |= IFF_UP;
  if (ioctl (s, SIOCSIFFLAGS, &ifr) < 0)
    {
      perror ("loopback_up: SIOCSIFFLAGS lo");
      return 1;
    }
  close (s);
  return 0;
}
