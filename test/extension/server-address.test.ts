import { describe, expect, it } from 'vitest';
import { serverAddressProblem } from '../../extension/lib/server-address.ts';

// The options page keeps a server address only where the member token and the text cannot
// be read on the way: https, or plain http to this machine.
describe('the server address', () => {
  it('is https, or http on this machine', () => {
    for (const address of ['https://redline.example.com', 'https://10.0.0.5:8443/', 'http://127.0.0.1:8787', 'http://localhost:8787', 'http://[::1]:8787', ' https://redline.example.com ']) {
      expect(serverAddressProblem(address), address).toBeUndefined();
    }
  });

  it('is refused as plain http to another machine, saying to use https', () => {
    for (const address of ['http://redline.example.com', 'http://10.0.0.5:8787', 'http://localhost.example.com', 'http://127.0.0.1.nip.io:8787']) {
      expect(serverAddressProblem(address), address).toMatch(/^Use https:\/\/\S+: over plain http anyone on the network could read your token/);
    }
  });

  it('is refused when it is not a web address', () => {
    for (const address of ['', 'redline.example.com', 'ftp://redline.example.com', 'javascript:alert(1)']) {
      expect(serverAddressProblem(address), address).toMatch(/^Enter the server address/);
    }
  });
});
