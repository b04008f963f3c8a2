import { describe, expect, it } from "vitest";
import { clientAddressKey } from "../src/client-address";
import { ipWindow } from "../src/windows";

describe("clientAddressKey", () => {
  it("keys an IPv6 client by its /64, whatever address of it is used", () => {
    const key = clientAddressKey("2001:db8:85a3:8d3::1");
    expect(key).toBe("2001:db8:85a3:8d3::/64");
    for (const address of [
      "2001:db8:85a3:8d3:1319:8a2e:370:7348",
      "2001:0DB8:85A3:08D3:0000:0000:0000:0002",
      "2001:db8:85a3:8d3:ffff:ffff:ffff:ffff",
      "[2001:db8:85a3:8d3::7]",
      "2001:db8:85a3:8d3::1%eth0",
      " 2001:db8:85a3:8d3:: ",
    ]) {
      expect(clientAddressKey(address), address).toBe(key);
    }
  });

  it("tells neighbouring /64s apart", () => {
    expect(clientAddressKey("2001:db8:85a3:8d4::1")).not.toBe(clientAddressKey("2001:db8:85a3:8d3::1"));
    expect(clientAddressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(clientAddressKey("::1")).toBe("0:0:0:0::/64");
    expect(clientAddressKey("fe80::1%25eth0")).toBe("fe80:0:0:0::/64");
  });

  it("keys IPv4 clients by their whole address, embedded in IPv6 or not", () => {
    for (const address of [
      "198.51.100.7",
      "::ffff:198.51.100.7",
      "::FFFF:c633:6407",
      "0:0:0:0:0:ffff:198.51.100.7",
      "64:ff9b::198.51.100.7",
    ]) {
      expect(clientAddressKey(address), address).toBe("198.51.100.7");
    }
    expect(clientAddressKey("198.51.100.8")).toBe("198.51.100.8");
  });

  it("puts everything that is not an address in one bucket", () => {
    for (const address of [
      "unknown",
      "",
      "1.2.3",
      "256.1.1.1",
      "1:2:3:4:5:6:7:8:9",
      "1::2::3",
      "2001:db8::g",
      "1:2:3:4:5:6:7::8",
    ]) {
      expect(clientAddressKey(address), address).toBe("invalid");
    }
  });

  it("names the failed-authentication window after the key", () => {
    expect(ipWindow("2001:db8:1:2:aaaa::1").key).toBe("ip:2001:db8:1:2::/64");
    expect(ipWindow("::ffff:203.0.113.7").key).toBe("ip:203.0.113.7");
  });
});
