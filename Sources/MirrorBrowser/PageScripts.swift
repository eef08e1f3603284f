/// The scripts the page loop runs in a page (`Runtime.evaluate`).
enum PageScripts {
    /// Scrolls to the bottom in steps of most of a window, pausing after each so lazy images and
    /// IntersectionObserver callbacks fire; returns the document's height at the end.
    static let scrollToBottom = """
        (async () => {
          const root = document.scrollingElement || document.documentElement;
          if (!root) return 0;  // a document between two navigations
          const step = Math.max(200, Math.floor(innerHeight * 0.8));
          for (let i = 0; i < 400 && root.scrollTop + innerHeight < root.scrollHeight; i++) {
            root.scrollTop += step;
            await new Promise(resolve => setTimeout(resolve, 60));
          }
          return root.scrollHeight;
        })()
        """

    static let scrollToTop = """
        { const root = document.scrollingElement || document.documentElement; if (root) root.scrollTop = 0; 0 }
        """

    /// Waits until what the page does on its own has run its course: two animation frames (a
    /// scroll event is dispatched in the frame after the scroll, and its handlers often defer
    /// their work to the next frame), then the CSS transitions and animations that are running
    /// (finite ones, at most 2 s), then two frames again, and pairs of frames until one passes
    /// with no change to the DOM (at most 500 ms). A header that changes on scroll is back in
    /// its opening state after this, not in the state the scroll left it in.
    static let settle = """
        (async () => {
          const frame = () => new Promise(resolve => requestAnimationFrame(() => resolve()));
          await frame(); await frame();
          const until = performance.now() + 2000;
          while (performance.now() < until && document.getAnimations) {
            const running = document.getAnimations().filter(a => a.playState === 'running' &&
              a.effect && a.effect.getComputedTiming().endTime !== Infinity);
            if (running.length === 0) break;
            await Promise.race([Promise.all(running.map(a => a.finished.catch(() => {}))),
                                new Promise(resolve => setTimeout(resolve, Math.max(0, until - performance.now())))]);
          }
          await frame(); await frame();
          // Then until a pair of frames passes without a change to the DOM (a script that sets a
          // size once a ResizeObserver reported, as Material's sidebars do), for at most 500 ms.
          let changed = true;
          const observer = new MutationObserver(() => { changed = true; });
          observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
          const quiet = performance.now() + 500;
          while (changed && performance.now() < quiet) { changed = false; await frame(); await frame(); }
          observer.disconnect();
          return 0;
        })()
        """

    /// The requests the copy's replay layer could not answer, as a JSON array.
    static let replayMisses = "JSON.stringify((window.__mirrorReplay && window.__mirrorReplay.misses) || [])"

    /// Run in the page before its own scripts: notes the script of each worker it starts, which
    /// the replay layer starts offline from its recorded bytes.
    static let recordWorkers = """
        (() => {
          const started = [], Worker = window.Worker;
          Object.defineProperty(window, '__mirrorWorkers', { value: started });
          if (!Worker) return;
          window.Worker = function (url, options) {
            try { started.push(new URL(url, document.baseURI).href); } catch (error) {}
            return new Worker(url, options);
          };
          window.Worker.prototype = Worker.prototype;
        })()
        """

    /// Where the page is, the absolute targets of its links and frames, and its workers' scripts.
    static let links = """
        JSON.stringify({
          location: location.href,
          workers: window.__mirrorWorkers || [],
          links: Array.from(document.querySelectorAll('a[href], area[href]'), a => a.href).filter(h => typeof h === 'string'),
          frames: Array.from(document.querySelectorAll('iframe[src], frame[src]'), f => f.src).filter(s => typeof s === 'string')
        })
        """

    /// The rendered DOM as a document for `file://`: its doctype kept, its scripts made inert (a
    /// type no browser runs, the original kept in `data-mirror-type`; `on…` handlers dropped) so
    /// that they neither empty nor double what they built, and its charset UTF-8 (what this
    /// serialization is). Style rules that scripts added with `insertRule` (styled-components,
    /// emotion: an empty `<style>` whose sheet holds the rules) or as adopted stylesheets are not
    /// in the DOM's text: they are written into it.
    static let snapshot = """
        (() => {
          const doctype = document.doctype ? new XMLSerializer().serializeToString(document.doctype) + '\\n' : '';
          const text = (sheet) => { try { return Array.from(sheet.cssRules, rule => rule.cssText).join('\\n'); } catch (error) { return ''; } };
          for (const style of document.querySelectorAll('style')) {
            if (style.sheet && style.textContent.trim() === '') style.textContent = text(style.sheet);
          }
          for (const sheet of document.adoptedStyleSheets || []) {
            const style = document.createElement('style');
            style.setAttribute('data-mirror-adopted', '');
            style.textContent = text(sheet);
            (document.head || document.documentElement).append(style);
          }
          for (const script of document.querySelectorAll('script')) {
            if (script.hasAttribute('type')) script.setAttribute('data-mirror-type', script.getAttribute('type'));
            script.setAttribute('type', 'text/x-mirror-inert');
          }
          for (const element of document.querySelectorAll('*')) {
            for (const name of element.getAttributeNames()) {
              if (name.toLowerCase().startsWith('on')) element.removeAttribute(name);
            }
          }
          for (const link of document.querySelectorAll('link[rel~="modulepreload"], link[rel~="preload"][as="script"]')) link.remove();
          for (const meta of document.querySelectorAll('meta[charset], meta[http-equiv]')) {
            if (meta.hasAttribute('charset') || meta.getAttribute('http-equiv').toLowerCase() === 'content-type') meta.remove();
          }
          if (document.head) {
            const meta = document.createElement('meta');
            meta.setAttribute('charset', 'utf-8');
            document.head.prepend(meta);
          }
          return doctype + document.documentElement.outerHTML;
        })()
        """
}
