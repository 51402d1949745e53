/** Invitation links: `<base>/console/#invitation=<token>`, the token in the fragment so that it never reaches a server's log. */

/** The invitation token of the console's address, if it is an invitation link. */
export function invitationToken(): string | null {
  const match = /^#invitation=([A-Za-z0-9_-]+)$/.exec(window.location.hash);
  return match?.[1] ?? null;
}
