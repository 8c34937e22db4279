/* netup — give an interface an IPv4 address and bring it up (the fleet cases' network: the image
 * has no iproute2, and this needs neither udev nor systemd-networkd).
 *
 *   netup IFNAME ADDRESS NETMASK
 *
 * SIOCSIFADDR, SIOCSIFNETMASK, then IFF_UP: the kernel adds the subnet's route itself.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static int set_addr(int fd, const char *ifname, unsigned long req, const char *text)
{
	struct ifreq ifr;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;

	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", ifname);
	sin->sin_family = AF_INET;
	if (inet_pton(AF_INET, text, &sin->sin_addr) != 1) {
		fprintf(stderr, "netup: not an IPv4 address: %s\n", text);
		return -1;
	}
	if (ioctl(fd, req, &ifr) < 0) {
		fprintf(stderr, "netup: %s %s: %m\n", ifname, text);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ifreq ifr;
	int fd;

	if (argc != 4 || strlen(argv[1]) >= IFNAMSIZ) {
		fprintf(stderr, "usage: netup IFNAME ADDRESS NETMASK\n");
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("netup: socket");
		return 1;
	}
	if (set_addr(fd, argv[1], SIOCSIFADDR, argv[2]) < 0 || set_addr(fd, argv[1], SIOCSIFNETMASK, argv[3]) < 0)
		return 1;
	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", argv[1]);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
		fprintf(stderr, "netup: %s: flags: %m\n", argv[1]);
		return 1;
	}
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0) {
		fprintf(stderr, "netup: %s: up: %m\n", argv[1]);
		return 1;
	}
	close(fd);
	return 0;
}
