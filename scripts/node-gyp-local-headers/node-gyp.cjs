#!/usr/bin/env node
// Installed as node_modules/.bin/node-gyp, which comes before npm's own node-gyp on the PATH of
// install scripts: a native dependency (better-sqlite3) without a prebuilt binary for this
// machine builds from source through this command. It
// points node-gyp at the headers installed next to the running Node (<prefix>/include/node,
// as Node's own and NodeSource's packages lay them out), because node-gyp would otherwise
// download them from nodejs.org. Without matching local headers it changes nothing.
'use strict';
const { existsSync, readFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const path = require('node:path');

const prefix = path.resolve(path.dirname(process.execPath), '..');
const versionHeader = path.join(prefix, 'include', 'node', 'node_version.h');
const [major, minor, patch] = process.versions.node.split('.');
const matches =
  existsSync(versionHeader) &&
  ((header) =>
    header.includes(`#define NODE_MAJOR_VERSION ${major}\n`) &&
    header.includes(`#define NODE_MINOR_VERSION ${minor}\n`) &&
    header.includes(`#define NODE_PATCH_VERSION ${patch}\n`))(readFileSync(versionHeader, 'utf8'));
// node-gyp's documented way to take an option from the environment (it overrides npm_config_*).
if (matches && !process.env.npm_package_config_node_gyp_nodedir) process.env.npm_package_config_node_gyp_nodedir = prefix;

// The node-gyp that ships with the npm running this install.
const npmCli = process.env.npm_execpath;
const nodeGyp = npmCli ? createRequire(npmCli).resolve("node-gyp/bin/node-gyp.js") : require.resolve("node-gyp/bin/node-gyp.js");
require(nodeGyp);
