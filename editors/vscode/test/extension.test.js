// Loads extension.js with stand-ins for VS Code's API and vscode-languageclient (neither is
// installed for the tests) and checks what it would start: `pillbox lsp` over stdio, the
// command taken from the pillbox.command setting, started again when the setting changes.
'use strict';

const assert = require('node:assert/strict');
const Module = require('node:module');
const path = require('node:path');
const { test } = require('node:test');

const WORKSPACE = path.join(path.sep, 'home', 'designer', 'pack');
const started = [];
const stopped = [];
const errors = [];
let setting = 'pillbox';
let failToStart = false;
let onConfigurationChange;

class FakeLanguageClient {
  constructor(id, name, server, clientOptions) {
    Object.assign(this, { id, name, server, clientOptions, running: false });
  }

  async start() {
    if (failToStart) throw new Error('spawn pillbox ENOENT');
    this.running = true;
    started.push(this);
  }

  isRunning() {
    return this.running;
  }

  async stop() {
    this.running = false;
    stopped.push(this);
  }
}

const fakeVscode = {
  workspace: {
    workspaceFolders: [{ uri: { fsPath: WORKSPACE } }],
    getConfiguration: (section) => ({ get: (key) => (section === 'pillbox' && key === 'command' ? setting : undefined) }),
    createFileSystemWatcher: (glob) => ({ glob, dispose() {} }),
    onDidChangeConfiguration: (listener) => {
      onConfigurationChange = listener;
      return { dispose() {} };
    },
  },
  window: {
    showErrorMessage: async (message) => {
      errors.push(message);
      return undefined;
    },
  },
  commands: { executeCommand: async () => undefined },
};

const resolve = Module._resolveFilename;
Module._resolveFilename = function resolveStandIns(request, ...rest) {
  if (request === 'vscode' || request === 'vscode-languageclient/node') return request;
  return resolve.call(this, request, ...rest);
};
require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: fakeVscode };
require.cache['vscode-languageclient/node'] = {
  id: 'vscode-languageclient/node',
  filename: 'vscode-languageclient/node',
  loaded: true,
  exports: { LanguageClient: FakeLanguageClient },
};

const extension = require('../extension.js');
const context = { subscriptions: [] };
const changeCommand = async (command) => {
  setting = command;
  await onConfigurationChange({ affectsConfiguration: (key) => key === 'pillbox.command' });
};

test('activating starts `pillbox lsp` over stdio for pillbox documents', async () => {
  await extension.activate(context);
  assert.equal(started.length, 1);
  const client = started[0];
  assert.deepEqual(client.server, { command: 'pillbox', args: ['lsp'], options: { cwd: WORKSPACE } });
  assert.equal(client.server.transport, undefined, 'a transport would add --stdio to the arguments');
  assert.deepEqual(client.clientOptions.documentSelector, [{ language: 'pillbox' }]);
  assert.equal(client.clientOptions.synchronize.fileEvents.glob, '**/{*.card,pack.yaml}');
});

test('a changed pillbox.command restarts the server; a relative path is the workspace\'s', async () => {
  await changeCommand('.venv/bin/pillbox');
  assert.equal(stopped.length, 1);
  assert.equal(started.length, 2);
  assert.equal(started[1].server.command, path.join(WORKSPACE, '.venv', 'bin', 'pillbox'));
  await changeCommand('/opt/pillbox/bin/pillbox');
  assert.equal(started[2].server.command, '/opt/pillbox/bin/pillbox');
  await changeCommand('  ');
  assert.equal(started[3].server.command, 'pillbox');
});

test('a command that does not start says how to fix it', async () => {
  failToStart = true;
  await changeCommand('pilbox');
  assert.equal(started.length, 4);
  assert.match(errors[0], /could not start "pilbox lsp".*pillbox\.command/);
  failToStart = false;
  await changeCommand('pillbox');
  assert.equal(started.length, 5);
  await extension.deactivate();
  assert.equal(started[4].isRunning(), false);
});
