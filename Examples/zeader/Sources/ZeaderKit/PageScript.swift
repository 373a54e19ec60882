// The page's script and style. The script opens the live stream (Server-Sent
// Events) and applies each event: a snapshot when it connects, then the
// fetched results controllers' changes as row removals, insertions (at
// their new index) and updates, and the total unread count. Clicks and the
// add-feed form are plain POSTs; their effects come back through the stream,
// like everyone else's.
extension Page {
    static let script = #"""
    (() => {
      const body = document.body;
      const servers = document.getElementById('servers');
      const items = document.getElementById('items');
      const status = document.getElementById('status');
      let selected = body.dataset.selected;

      const element = html => {
        const template = document.createElement('template');
        template.innerHTML = html.trim();
        return template.content.firstElementChild;
      };
      const markSelected = () => {
        for (const li of servers.children) li.classList.toggle('selected', li.id === selected);
      };
      // Removals by ID, then insertions in ascending index, then updates:
      // the order that turns the old list into the new one.
      const patch = (list, change) => {
        for (const id of change.remove || []) document.getElementById(id)?.remove();
        for (const row of change.insert || []) {
          document.getElementById(row.id)?.remove();
          list.insertBefore(element(row.html), list.children[row.index] || null);
        }
        for (const row of change.update || []) document.getElementById(row.id)?.replaceWith(element(row.html));
      };
      const apply = event => {
        switch (event.kind) {
          case 'snapshot':
            servers.innerHTML = event.servers;
            items.innerHTML = event.items;
            items.dataset.feed = event.feed;
            document.getElementById('feed-title').textContent = event.title;
            selected = event.selected;
            markSelected();
            document.title = `zeader (${event.unread} unread)`;
            body.dataset.live = 'connected';
            break;
          case 'servers':
            patch(servers, event);
            // No feed shown (an empty store), or the shown one is gone: show
            // the first one.
            if ((!selected || !document.getElementById(selected)) && servers.firstElementChild) {
              location.href = '/?server=' + encodeURIComponent(servers.firstElementChild.dataset.id);
            }
            markSelected();
            break;
          case 'items': {
            for (const id of event.remove) document.getElementById(id)?.remove();
            const mine = event.feeds[items.dataset.feed];
            if (mine) patch(items, mine);
            break;
          }
          case 'total':
            document.title = `zeader (${event.unread} unread)`;
            break;
        }
      };

      // EventSource reconnects by itself; the snapshot it then receives
      // replaces whatever was missed.
      const source = new EventSource(body.dataset.events);
      source.onmessage = message => apply(JSON.parse(message.data));
      source.onerror = () => { body.dataset.live = 'reconnecting'; };

      const post = async (path, fields) => {
        const response = await fetch(path, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Requested-With': 'fetch' },
          body: new URLSearchParams(fields),
        });
        const text = await response.text();
        if (!response.ok) throw new Error(text || response.statusText);
        return text;
      };
      const show = text => { status.textContent = text; status.className = ''; };
      const showError = error => { status.textContent = error.message; status.className = 'error'; };

      items.addEventListener('click', event => {
        if (event.target.closest('a')) return;
        const li = event.target.closest('li.item');
        if (!li || li.classList.contains('read')) return;
        post('/items/read', { id: li.dataset.id }).catch(showError);
      });
      servers.addEventListener('click', event => {
        const button = event.target.closest('button.mark-all');
        if (!button) return;
        post('/servers/read', { id: button.closest('li.server').dataset.id }).then(show, showError);
      });
      document.getElementById('add-feed').addEventListener('submit', event => {
        event.preventDefault();
        const form = event.target;
        status.className = '';
        show('Importing…');
        post('/feeds', { url: form.elements.url.value }).then(text => { show(text); form.reset(); }, showError);
      });
    })();
    """#

    static let style = """
    body { font: 15px/1.4 system-ui, sans-serif; margin: 0; color: #222; }
    header { display: flex; gap: 1.5em; align-items: baseline; padding: .6em 1.2em; background: #24292f; color: #fff; }
    header h1 { margin: 0; font-size: 1.3em; }
    #status { margin: 0; font-size: .9em; } #status.error { color: #ff9d9d; }
    main { display: flex; }
    nav { width: 19em; border-right: 1px solid #ddd; min-height: 90vh; }
    ul { list-style: none; margin: 0; padding: 0; }
    li.server { padding: .55em 1em; border-bottom: 1px solid #eee; display: flex; gap: .5em; align-items: center; }
    li.server.selected { background: #e8f0fe; }
    li.server .name { flex: 1; color: inherit; text-decoration: none; font-weight: 600; }
    .count { background: #0969da; color: #fff; border-radius: 1em; padding: 0 .55em; font-size: .85em; }
    .mark-all { font-size: .75em; }
    section { flex: 1; padding: 0 1.2em; }
    li.item { padding: .5em .3em; border-bottom: 1px solid #eee; cursor: pointer; }
    li.item.unread .title { font-weight: 600; }
    li.item.unread .title::before { content: "● "; color: #0969da; }
    li.item.read { color: #777; }
    li.item time { font-size: .8em; color: #888; margin-left: .5em; }
    li.item .open { font-size: .8em; margin-left: .5em; }
    """
}
