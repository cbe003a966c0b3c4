/**
 * `sessionctx serve --open`: hands the URL to the system's opener (`xdg-open`, `open`, `start`). Opening is a
 * convenience: a machine without an opener (a container, an SSH session) only gets a warning, the server runs on.
 */
import { spawn } from 'node:child_process';

/** The opener command line of a platform. */
function openerOf(platform: NodeJS.Platform, url: string): { readonly command: string; readonly args: readonly string[] } {
  switch (platform) {
    case 'darwin':
      return { command: 'open', args: [url] };
    case 'win32':
      // `start` is a shell built-in; its first quoted argument is the window title.
      return { command: 'cmd', args: ['/c', 'start', '""', url] };
    default:
      return { command: 'xdg-open', args: [url] };
  }
}

/**
 * Starts the system browser on `url` without waiting for it.
 * @param url - what to open.
 * @param warn - called with a sentence when the opener could not be started or failed.
 */
export function openBrowser(url: string, warn: (message: string) => void): void {
  const { command, args } = openerOf(process.platform, url);
  try {
    const child = spawn(command, [...args], { stdio: 'ignore', detached: true });
    child.on('error', (error) => warn(`could not open a browser (${command}: ${error.message}); open the URL yourself`));
    child.on('exit', (code) => {
      if (code !== 0 && code !== null) warn(`${command} exited with status ${code}; open the URL yourself`);
    });
    child.unref();
  } catch (error) {
    warn(`could not open a browser (${command}: ${(error as Error).message}); open the URL yourself`);
  }
}
