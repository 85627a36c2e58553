/**
 * One indexed chunk, as the service stores it. `source_url` is the internal address the
 * ingestion saw (flare://, pdf://, mdx-dwc://, file://, https://); `display_url` the public
 * page; `source_type` a reader-facing label.
 */
export interface FakeChunk {
  title: string;
  content: string;
  source_url: string;
  display_url: string;
  source_type: string;
  doc_type: string;
  generations: readonly string[];
  context_header: string;
  deprecated: boolean;
}

const DOCS = 'https://documentation.basis.cloud/BASISHelp/WebHelp/';
const DWC_COURSE = 'https://basishub.github.io/DWC-Course/';

function flare(path: string): Pick<FakeChunk, 'source_url' | 'display_url' | 'source_type'> {
  return {
    source_url: `flare://Content/${path}`,
    display_url: `${DOCS}${path}`,
    source_type: 'BASIS BBj Documentation',
  };
}

/**
 * A small sample of BBj documentation written for this project's tests and sandbox (not
 * copied from BASIS). It covers every generation tag, has deprecated entries, and mixes
 * source types so per-source-type counts mean something.
 */
export const SAMPLE_CORPUS: readonly FakeChunk[] = [
  {
    ...flare('bbjobjects/Window/bbjwindow/bbjwindow_addbutton.htm'),
    title: 'BBjWindow::addButton',
    context_header: 'BBj Objects > BBjWindow > addButton',
    doc_type: 'api-reference',
    generations: ['bbj_gui', 'dwc'],
    deprecated: false,
    content:
      'BBjButton addButton(int id, number x, number y, number w, number h, string title$) creates a push button on the window and returns it. ' +
      'The id must be unique among the controls of the window. Register what happens on a click with setCallback and the ON_BUTTON_PUSH event:\n\n' +
      'window! = sysgui!.addWindow(100, 100, 320, 200, "Orders")\n' +
      'ok! = window!.addButton(101, 20, 150, 90, 25, "OK")\n' +
      'ok!.setCallback(ok!.ON_BUTTON_PUSH, "on_ok")\n' +
      'process_events',
  },
  {
    ...flare('bbjobjects/SysGui/bbjsysgui/bbjsysgui_addwindow.htm'),
    title: 'BBjSysGui::addWindow',
    context_header: 'BBj Objects > BBjSysGui > addWindow',
    doc_type: 'api-reference',
    generations: ['bbj_gui', 'dwc'],
    deprecated: false,
    content:
      'BBjTopLevelWindow addWindow(number x, number y, number w, number h, string title$) creates a top-level window on the SYSGUI device. ' +
      'Open the device first with BBjAPI().openSysGui("X0"). Optional flags as a final $hex$ string control whether the window is resizable, has a close box or starts invisible.',
  },
  {
    ...flare('bbjevents/event_handling.htm'),
    title: 'Event handling with setCallback and PROCESS_EVENTS',
    context_header: 'BBj Events > Overview',
    doc_type: 'concept',
    generations: ['bbj_gui', 'dwc'],
    deprecated: false,
    content:
      'An event-driven BBj program registers a callback for each event it cares about with setCallback(event, label or object method) and then executes PROCESS_EVENTS, ' +
      'which waits for events and runs the matching callback. Inside a callback, BBjAPI().getLastEvent() returns the event object with details such as the control and the event type. ' +
      'Remove a callback with clearCallback. Return from a label callback with RETURN.',
  },
  {
    source_url: 'mdx-dwc://02-styling/01-css-classes.md',
    display_url: `${DWC_COURSE}docs/styling/css-classes`,
    source_type: 'DWC Tutorial',
    title: 'Styling DWC controls with CSS classes',
    context_header: 'DWC Course > Styling > CSS classes',
    doc_type: 'example',
    generations: ['dwc'],
    deprecated: false,
    content:
      'In the Dynamic Web Client every control is rendered as a web component, so it is styled with CSS rather than with fonts and colors set one by one. ' +
      'Add a class with control!.addClass("primary-action") and define the class in a stylesheet loaded with BBjAPI().getWebManager().injectStyleUrl(url$). ' +
      'For a one-off change, control!.setStyle("padding", "var(--dwc-space-m)") sets a single CSS property.',
  },
  {
    source_url: 'mdx-dwc://01-gui-to-bui-to-dwc/03-registering-launching.md',
    display_url: `${DWC_COURSE}docs/gui-to-bui-to-dwc/registering-launching`,
    source_type: 'DWC Tutorial',
    title: 'Registering and launching a DWC application',
    context_header: 'DWC Course > From GUI to DWC > Registering and launching',
    doc_type: 'migration',
    generations: ['bbj_gui', 'dwc'],
    deprecated: false,
    content:
      'A BBj GUI program runs in the browser without being rewritten: register it as a web application in Enterprise Manager (program, working directory, config file) and open the application URL. ' +
      'Check for client-specific code with INFO(3,6), which reports whether the program runs as GUI, BUI or DWC, and replace file dialogs and local printing where the browser cannot provide them.',
  },
  {
    ...flare('bui/bui_overview.htm'),
    title: 'BUI: running BBj GUI programs in a browser',
    context_header: 'Browser User Interface > Overview',
    doc_type: 'concept',
    generations: ['bbj_gui'],
    deprecated: true,
    content:
      'The Browser User Interface (BUI) showed BBj GUI programs in a web browser through a server-side rendering bridge. ' +
      'It is superseded by the Dynamic Web Client (DWC); new browser deployments should target the DWC, and BUI applications can be moved to it with few changes.',
  },
  {
    ...flare('commands/print_verb.htm'),
    title: 'PRINT Verb',
    context_header: 'Verbs > PRINT',
    doc_type: 'language-reference',
    generations: ['character', 'all'],
    deprecated: false,
    content:
      'PRINT (channel) item, item, ... writes to a channel; without a channel it writes to the terminal (channel 0). ' +
      'Mnemonics in single quotes control a character terminal: PRINT \'CS\' clears the screen, @(column,row) positions the cursor, and PRINT @(10,5),"Name:" writes a prompt at column 10 of row 5. ' +
      'A trailing comma suppresses the line feed.',
  },
  {
    ...flare('commands/input_verb.htm'),
    title: 'INPUT Verb',
    context_header: 'Verbs > INPUT',
    doc_type: 'language-reference',
    generations: ['character'],
    deprecated: false,
    content:
      'INPUT (0, ERR=retry) @(10,5), "Name: ", name$ shows a prompt on a character terminal and reads a value into name$. ' +
      'A numeric variable makes INPUT reject non-numeric entries; LEN= limits the field length and the TIM= option ends the wait after a number of seconds.',
  },
  {
    ...flare('mnemonic/terminal/terminal_mnemonics.htm'),
    title: "Terminal attribute mnemonics ('BR', 'ER')",
    context_header: 'Mnemonics > Terminal > Video attributes',
    doc_type: 'language-reference',
    generations: ['character'],
    deprecated: true,
    content:
      "On character terminals, 'BR' begins reverse video and 'ER' ends it; 'BB' and 'EB' do the same for blinking text. " +
      'They depend on the terminal definition (termcap) and many emulations ignore them. Keep them only in maintained terminal programs; new user interfaces use BBj GUI or the DWC.',
  },
  {
    ...flare('commands/open_verb.htm'),
    title: 'OPEN, READ RECORD and WRITE RECORD',
    context_header: 'Verbs > File I/O',
    doc_type: 'language-reference',
    generations: ['all'],
    deprecated: false,
    content:
      'OPEN (1) "CUSTOMERS" opens a data file on channel 1. READ RECORD (1, KEY=id$, ERR=not_found) rec$ reads the record with that key, ' +
      'WRITE RECORD (1) rec$ writes one and CLOSE (1) releases the channel. Use UNT to get a free channel number instead of hard-coding it: ch = UNT, then OPEN (ch) "CUSTOMERS".',
  },
  {
    ...flare('commands/seterr_verb.htm'),
    title: 'Error handling: ERR= and SETERR',
    context_header: 'Verbs > SETERR',
    doc_type: 'concept',
    generations: ['all'],
    deprecated: false,
    content:
      'Most verbs accept an ERR=label option that branches to the label when the statement fails. SETERR label installs a handler for errors without ERR=. ' +
      'In the handler, ERR returns the error number and ERRMES(-1) its text; RETRY runs the failing statement again and RETURN-style recovery continues after it.',
  },
  {
    ...flare('usr/bbj_enhancements/custom_objects.htm'),
    title: 'Custom classes: CLASS, FIELD and METHOD',
    context_header: 'BBj Language > Object-oriented programming > Custom objects',
    doc_type: 'language-reference',
    generations: ['all'],
    deprecated: false,
    content:
      'class public Invoice\n  field public BBjString Customer$\n  field public BBjNumber Total\n  method public void addLine(BBjNumber amount)\n    #Total = #Total + amount\n  methodend\nclassend\n\n' +
      'Fields are referenced as #Name inside the class. Create an object with declare Invoice invoice! and invoice! = new Invoice(), and load the class source with USE ::invoice.bbj::Invoice.',
  },
  {
    ...flare('commands/cvs_function.htm'),
    title: 'CVS() Function',
    context_header: 'Functions > String functions > CVS',
    doc_type: 'language-reference',
    generations: ['all'],
    deprecated: false,
    content:
      'CVS(string$, mode) converts a string. Modes add up: 1 removes leading spaces, 2 removes trailing spaces, 4 converts to upper case, 8 to lower case. ' +
      'CVS(name$, 3) trims both ends; CVS(code$, 4) upper-cases a code before a keyed READ.',
  },
  {
    ...flare('mnemonic/sysgui/window_mnemonic.htm'),
    title: "'WINDOW' mnemonic (Visual PRO/5)",
    context_header: 'Mnemonics > SYSGUI > WINDOW',
    doc_type: 'api-reference',
    generations: ['vpro5'],
    deprecated: true,
    content:
      "Visual PRO/5 created windows by printing to the SYSGUI device: PRINT (sysgui)'WINDOW'(x, y, w, h, title$, flags$, event_mask$). " +
      'Controls were added with further mnemonics and events read with READ RECORD (sysgui) from the event queue. In BBj use BBjSysGui::addWindow and callbacks instead; keep the mnemonic only when maintaining old code.',
  },
  {
    ...flare('commands/ctrl_function.htm'),
    title: 'CTRL() Function (Visual PRO/5)',
    context_header: 'Functions > GUI functions > CTRL',
    doc_type: 'api-reference',
    generations: ['vpro5'],
    deprecated: true,
    content:
      'CTRL(sysgui, control_id, 1) returned the text of a control in a Visual PRO/5 window, and other selectors returned its state or position. ' +
      'In BBj, ask the control object instead: control!.getText(). CTRL() remains for compatibility with existing Visual PRO/5 programs.',
  },
  {
    ...flare('bbjobjects/SysGui/bbjsysgui/bbjsysgui_createtoplevelwindow.htm'),
    title: 'Windows from resource files',
    context_header: 'BBj Objects > BBjSysGui > createTopLevelWindow',
    doc_type: 'example',
    generations: ['vpro5', 'bbj_gui'],
    deprecated: false,
    content:
      'Forms designed in a resource (.arc) file can be loaded instead of built in code: res = sysgui!.resOpen("orders.arc") and then ' +
      'window! = sysgui!.createTopLevelWindow(res, 101) creates the window with id 101 and all its controls. Resource files made for Visual PRO/5 load the same way.',
  },
  {
    source_url: 'file://samples/grid/orders_grid.bbj',
    display_url: 'https://github.com/BasisHub/samples/blob/main/grid/orders_grid.bbj',
    source_type: 'BBj Source Code',
    title: 'orders_grid.bbj',
    context_header: 'Samples > Grids > orders_grid.bbj',
    doc_type: 'example',
    generations: ['bbj_gui', 'dwc'],
    deprecated: false,
    content:
      'grid! = window!.addGrid(110, 10, 10, 600, 300)\ngrid!.setNumColumns(3)\ngrid!.setColumnHeaderText(0, "Order")\n' +
      'grid!.setCellText(0, 0, "A-1001")\ngrid!.setCallback(grid!.ON_GRID_CELL_DOUBLE_CLICK, "open_order")',
  },
  {
    source_url: 'https://basis.cloud/knowledge-base/calling-java-from-bbj',
    display_url: 'https://basis.cloud/knowledge-base/calling-java-from-bbj',
    source_type: 'BASIS Knowledge Base',
    title: 'Calling Java classes from BBj',
    context_header: 'Knowledge Base > Java interoperability',
    doc_type: 'best-practice',
    generations: ['all'],
    deprecated: false,
    content:
      'BBj runs on the JVM and can use any Java class on its classpath. Import it with USE java.util.HashMap, then create and call it like a BBj object: ' +
      'map! = new HashMap() and map!.put("key", "value"). Declare object variables with a trailing ! and prefer BBjAPI() objects where one exists.',
  },
  {
    source_url: 'pdf://manuals/bbj-migration-guide.pdf#page=12',
    display_url: 'https://documentation.basis.cloud/manuals/bbj-migration-guide.pdf#page=12',
    source_type: 'PDF Manual',
    title: 'Moving Visual PRO/5 programs to BBj',
    context_header: 'Migration Guide > From Visual PRO/5',
    doc_type: 'migration',
    generations: ['vpro5', 'bbj_gui'],
    deprecated: false,
    content:
      "Visual PRO/5 programs usually run unchanged in BBj. Plan the move to objects step by step: replace SYSGUI mnemonics such as 'WINDOW' with BBjSysGui calls, " +
      'replace the READ RECORD event loop with setCallback and PROCESS_EVENTS, and replace CTRL() with methods of the control objects.',
  },
  {
    ...flare('bbjobjects/bbjapi/bbjapi_getlastevent.htm'),
    title: 'BBjAPI::getLastEvent',
    context_header: 'BBj Objects > BBjAPI > getLastEvent',
    doc_type: 'version-note',
    generations: ['bbj_gui', 'dwc'],
    deprecated: false,
    content:
      'BBjEvent getLastEvent() returns the event that started the current callback. Cast it to the specific event class, e.g. BBjButtonPushEvent, to reach its methods; ' +
      'since the DWC, events also carry getEventMap() with the browser-side details.',
  },
];
