// Starts `pillbox lsp` for .card files. Everything a designer sees beyond the colours (errors,
// completion, hover, go to definition, formatting, quick fixes) comes from the language server;
// this file only finds the command and restarts it when the setting changes.
'use strict';

const path = require('node:path');
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;
let watcher;

/** The command the setting names; a relative path is taken from the workspace folder. */
function pillboxCommand(folder) {
  const configured = vscode.workspace.getConfiguration('pillbox').get('command', 'pillbox');
  const command = String(configured ?? '').trim() || 'pillbox';
  const isRelativePath = !path.isAbsolute(command) && /[\\/]/.test(command);
  return isRelativePath && folder ? path.join(folder, command) : command;
}

async function start() {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const command = pillboxCommand(folder);
  // No `transport`: the client would add `--stdio`, which `pillbox lsp` does not take; the
  // server speaks on stdin and stdout all the same.
  const server = { command, args: ['lsp'], options: folder ? { cwd: folder } : {} };
  watcher = vscode.workspace.createFileSystemWatcher('**/{*.card,pack.yaml}');
  client = new LanguageClient(
    'pillbox',
    'pillbox',
    server,
    {
      documentSelector: [{ language: 'pillbox' }],
      // The server checks a file in its pack: saved cards and pack.yaml files are its context.
      synchronize: {
        fileEvents: watcher,
      },
    },
  );
  try {
    await client.start();
  } catch (error) {
    await stop();
    const choice = await vscode.window.showErrorMessage(
      `pillbox: could not start "${command} lsp" (${error.message ?? error}). ` +
        'Install pillbox so that it is on PATH, or set pillbox.command to its path.',
      'Open Settings',
    );
    if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'pillbox.command');
    }
  }
}

async function stop() {
  const running = client;
  client = undefined;
  watcher?.dispose();
  watcher = undefined;
  if (running?.isRunning()) await running.stop();
}

/** Called by VS Code when the first .card file opens. */
async function activate(context) {
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration('pillbox.command')) return;
      await stop();
      await start();
    }),
  );
  await start();
}

/** Called by VS Code on shutdown. */
function deactivate() {
  return stop();
}

module.exports = { activate, deactivate };
